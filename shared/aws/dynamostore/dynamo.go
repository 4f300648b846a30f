// Package dynamostore is the DynamoDB adapter of the storage port. Every
// table has the key schema pk (S, HASH), sk (S, RANGE) and the attributes
// data (B), n (N), v (N, the version) and ttl (N, unix seconds, omitted when
// the item never expires); a large body is stored deflated in dz instead of
// data (pack.go). Expiry is also checked in code and in every
// condition, since DynamoDB reaps expired items late.
package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/paygate/paygate/shared/store"
)

// Attribute names.
const (
	attrPK   = "pk"
	attrSK   = "sk"
	attrData = "data"
	attrN    = "n"
	attrV    = "v"
	attrTTL  = "ttl"
	// attrWrite is the token of the last single-item write (write.go's
	// stamped): never read into an Item.
	attrWrite = "wt"
)

// Store is the DynamoDB adapter of store.Store.
type Store struct {
	client *dynamodb.Client
	tables map[string]string // logical -> physical
	clock  store.Clock
	lanes  lanes // Submit's combining (combine.go)
}

var _ store.Store = (*Store)(nil)

// New builds a store over client; tables maps logical table names to physical
// ones. A nil clock means time.Now.
func New(client *dynamodb.Client, tables map[string]string, clock store.Clock) *Store {
	if clock == nil {
		clock = time.Now
	}
	return &Store{client: client, tables: tables, clock: clock}
}

// Close is a no-op: the client holds no resources to release.
func (s *Store) Close() error { return nil }

// Get is GetItem with ConsistentRead; an expired item is ErrNotFound.
func (s *Store) Get(ctx context.Context, k store.Key) (store.Item, error) {
	table, err := s.table(k.Table)
	if err != nil {
		return store.Item{}, err
	}
	if k.PK == "" || k.SK == "" {
		return store.Item{}, fmt.Errorf("%w: get needs pk and sk", store.ErrInvalid)
	}
	if !store.KeyFits(k) {
		return store.Item{}, store.ErrNotFound // no write accepts such a key; DynamoDB would call it invalid
	}
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      &table,
		Key:            keyAttrs(k),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return store.Item{}, wrapErr("dynamostore.Get", err)
	}
	it, err := decodeLive(k.Table, out.Item, s.clock())
	if err != nil {
		return store.Item{}, err
	}
	if it == nil {
		return store.Item{}, store.ErrNotFound
	}
	return *it, nil
}

func (s *Store) table(logical string) (string, error) {
	if t, ok := s.tables[logical]; ok {
		return t, nil
	}
	return "", fmt.Errorf("%w: unknown table %q", store.ErrInvalid, logical)
}

func keyAttrs(k store.Key) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		attrPK: &types.AttributeValueMemberS{Value: k.PK},
		attrSK: &types.AttributeValueMemberS{Value: k.SK},
	}
}

func numAttr(n int64) *types.AttributeValueMemberN {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

var errBadItem = errors.New("dynamostore: malformed item")

// decode reads a stored item, expired or not; nil for an empty map.
func decode(table string, m map[string]types.AttributeValue) (*store.Item, error) {
	if len(m) == 0 {
		return nil, nil
	}
	pk, ok1 := m[attrPK].(*types.AttributeValueMemberS)
	sk, ok2 := m[attrSK].(*types.AttributeValueMemberS)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("%w in %s: no key", errBadItem, table)
	}
	it := &store.Item{Key: store.Key{Table: table, PK: pk.Value, SK: sk.Value}}
	if d, ok := m[attrData].(*types.AttributeValueMemberB); ok && len(d.Value) > 0 {
		it.Data = d.Value
	}
	var err error
	if z, ok := m[attrPacked].(*types.AttributeValueMemberB); ok {
		if it.Data, err = unpack(z.Value); err != nil {
			return nil, fmt.Errorf("%w at %s", err, it.Key)
		}
	}
	if it.N, err = num(m, attrN); err != nil {
		return nil, fmt.Errorf("%w at %s: %v", errBadItem, it.Key, err)
	}
	if it.Version, err = num(m, attrV); err != nil {
		return nil, fmt.Errorf("%w at %s: %v", errBadItem, it.Key, err)
	}
	ttl, err := num(m, attrTTL)
	if err != nil {
		return nil, fmt.Errorf("%w at %s: %v", errBadItem, it.Key, err)
	}
	if ttl != 0 {
		it.ExpiresAt = time.Unix(ttl, 0).UTC()
	}
	return it, nil
}

// decodeLive is decode with expired items read as absent.
func decodeLive(table string, m map[string]types.AttributeValue, now time.Time) (*store.Item, error) {
	it, err := decode(table, m)
	if err != nil || it == nil || it.Expired(now) {
		return nil, err
	}
	return it, nil
}

// num reads a numeric attribute; 0 when absent.
func num(m map[string]types.AttributeValue, name string) (int64, error) {
	a, ok := m[name]
	if !ok {
		return 0, nil
	}
	n, ok := a.(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("%s is not a number", name)
	}
	return strconv.ParseInt(n.Value, 10, 64)
}

// expirySeconds is the ttl attribute of an expiry: whole unix seconds, as the
// embedded adapter stores it; at least 1 so a past expiry still reads expired.
func expirySeconds(t time.Time) int64 { return max(t.Unix(), 1) }

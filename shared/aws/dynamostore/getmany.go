package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/retry"
	"github.com/paygate/paygate/shared/store"
)

var _ store.BatchGetter = (*Store)(nil)

// unprocessedBackoff spaces the retries of keys a BatchGetItem left
// unprocessed (throttling): 10 ms, 20 ms, ... with jitter.
var unprocessedBackoff = retry.Backoff{Base: 10 * time.Millisecond, Max: 500 * time.Millisecond, Jitter: retry.Equal}

// maxUnprocessedRounds bounds the retries of unprocessed keys.
const maxUnprocessedRounds = 8

// GetMany reads up to store.MaxBatchGet distinct keys, of any tables, with
// one strongly consistent BatchGetItem (and more only for the keys DynamoDB
// leaves unprocessed), and returns the live items found by key.
func (s *Store) GetMany(ctx context.Context, keys []store.Key) (map[store.Key]store.Item, error) {
	if len(keys) > store.MaxBatchGet {
		return nil, fmt.Errorf("%w: %d keys in one batch read (at most %d)", store.ErrInvalid, len(keys), store.MaxBatchGet)
	}
	logical := make(map[string]string, len(s.tables))
	req := map[string]types.KeysAndAttributes{}
	for _, k := range keys {
		table, err := s.table(k.Table)
		if err != nil {
			return nil, err
		}
		if k.PK == "" || k.SK == "" {
			return nil, fmt.Errorf("%w: get needs pk and sk", store.ErrInvalid)
		}
		if !store.KeyFits(k) {
			continue // no write accepts such a key: absent, as Get says
		}
		logical[table] = k.Table
		ka := req[table]
		ka.ConsistentRead = aws.Bool(true)
		ka.Keys = append(ka.Keys, keyAttrs(k))
		req[table] = ka
	}
	out := make(map[store.Key]store.Item, len(keys))
	now := s.clock()
	for round := 0; len(req) > 0; round++ {
		if round > 0 {
			if round > maxUnprocessedRounds {
				return nil, apierr.Wrap("dynamostore.GetMany", apierr.Unavailable, errors.New("keys left unprocessed"))
			}
			if err := unprocessedBackoff.Sleep(ctx, round-1); err != nil {
				return nil, err
			}
		}
		resp, err := s.client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
		if err != nil {
			return nil, wrapErr("dynamostore.GetMany", err)
		}
		for table, items := range resp.Responses {
			for _, m := range items {
				it, err := decodeLive(logical[table], m, now)
				if err != nil {
					return nil, err
				}
				if it != nil {
					out[it.Key] = *it
				}
			}
		}
		req = resp.UnprocessedKeys
	}
	return out, nil
}

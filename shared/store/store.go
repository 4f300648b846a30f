// Package store is the storage port: the few operations that both adapters
// (DynamoDB and the embedded single-file store) offer with identical semantics.
// Business packages depend on this package only, never on an adapter.
//
// Data model: logical tables of items keyed by (PK, SK), both strings. An item
// carries an opaque Data body (JSON by convention), a signed 64-bit counter N
// for atomic adds, a store-managed Version (1 on create, +1 on every write),
// and an optional expiry. Expired items are treated as absent everywhere (Get,
// Query, conditions), in code, whether or not the backend has reaped them yet.
package store

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/apierr"
)

// Logical table names. Adapters map them to physical names (see TableNames).
const (
	TableAccounts    = "accounts"    // accounts, API keys, client keys, webhook endpoints
	TableIdempotency = "idempotency" // idempotency records (TTL)
	TableSessions    = "sessions"    // checkout sessions (TTL after expiry)
	TableOrders      = "orders"      // gate orders
	TablePayments    = "payments"    // payment records and their history
	TableLedger      = "ledger"      // balances and deposits
	TableCatalog     = "catalog"     // gate catalog (types, categories, products)
	TableEvents      = "events"      // event records for the webhook pipeline (stream source)
)

// AllTables lists every logical table, for adapters that create them.
var AllTables = []string{
	TableAccounts, TableIdempotency, TableSessions, TableOrders,
	TablePayments, TableLedger, TableCatalog, TableEvents,
}

// MaxTransactOps is DynamoDB's limit, enforced by both adapters alike.
const MaxTransactOps = 100

// Size limits are DynamoDB's, enforced by both adapters alike before anything
// is sent or written, so an oversized record is the same kinded error on the
// embedded store as on DynamoDB (where it would otherwise be a
// ValidationException, a 500).
const (
	MaxItemSize     = 400 * 1024      // one item, as ItemSize counts it
	MaxTransactSize = 4 * 1024 * 1024 // the sum of a transaction's items
	MaxPKSize       = 2048            // partition key, bytes
	MaxSKSize       = 1024            // sort key, bytes
)

// itemOverhead bounds what an item costs beyond its key and Data, as the
// DynamoDB adapter writes it: the attribute names pk, sk, data, n, v and ttl
// (13 bytes) and three numbers at DynamoDB's largest size (21 bytes each).
const itemOverhead = 13 + 3*21

// ItemSize is a conservative bound of the size DynamoDB counts for it
// (attribute names plus values): at most a few dozen bytes above the exact
// figure, never below it.
func ItemSize(it Item) int { return len(it.PK) + len(it.SK) + len(it.Data) + itemOverhead }

// ErrTooLarge marks an item over MaxItemSize, a transaction over
// MaxTransactSize or a key over its limit (errors.Is finds it). The error
// returned is an apierr of kind Invalid wrapping it: the data came from the
// caller, so the answer is a 400 with code item_too_large, never a 500.
var ErrTooLarge = errors.New("store: too large")

func tooLarge(format string, args ...any) error {
	return &apierr.Error{Kind: apierr.Invalid, Code: "item_too_large", Op: "store.Write",
		Message: "the record is too large to store (at most 400 KB per record); send less data",
		Err:     fmt.Errorf("%w: "+format, append([]any{ErrTooLarge}, args...)...)}
}

// MaxQueryLimit bounds every query page.
const MaxQueryLimit = 1000

// Key addresses one item.
type Key struct {
	Table string
	PK    string
	SK    string
}

func (k Key) String() string { return k.Table + "/" + k.PK + "/" + k.SK }

// Item is one stored record.
type Item struct {
	Key
	Data      []byte    // opaque body; JSON by convention
	N         int64     // counter changed atomically by OpAdd
	Version   int64     // managed by the store; 0 means "not stored"
	ExpiresAt time.Time // zero: never expires; stored as unix seconds (TTL attribute "ttl")
}

// Expired reports whether the item's expiry has passed at now.
func (it Item) Expired(now time.Time) bool {
	return !it.ExpiresAt.IsZero() && !now.Before(it.ExpiresAt)
}

// CondKind is the kind of precondition on a write.
type CondKind int

const (
	CondNone    CondKind = iota // unconditional
	CondAbsent                  // the item must not exist (or be expired)
	CondExists                  // the item must exist (and not be expired)
	CondVersion                 // the item must exist at exactly Version
)

// Cond is a precondition on one write.
type Cond struct {
	Kind    CondKind
	Version int64
}

var (
	Always   = Cond{Kind: CondNone}
	IfAbsent = Cond{Kind: CondAbsent}
	IfExists = Cond{Kind: CondExists}
)

// IfVersion requires the item to be stored at version v.
func IfVersion(v int64) Cond { return Cond{Kind: CondVersion, Version: v} }

// OpKind is the kind of one write.
type OpKind int

const (
	OpPut    OpKind = iota + 1 // write Item whole (Data, N, ExpiresAt); Version becomes old+1
	OpAdd                      // N += Delta; creates the item if absent (N = Delta)
	OpDelete                   // remove the item
	OpCheck                    // write nothing; only Cond must hold (transactions only)
)

// Op is one write, alone or inside a transaction.
type Op struct {
	Kind OpKind
	Item Item // OpPut: the full item. Others: Item.Key; OpAdd also sets Data/ExpiresAt when Data != nil.
	Cond Cond
	// OpAdd only.
	Delta int64
	// NonNegative makes OpAdd fail (ConditionFailed) instead of taking N below
	// zero: the atomic conditional decrement behind balances. An absent item
	// counts as N = 0.
	NonNegative bool
}

// Put writes it whole under cond.
func Put(it Item, cond Cond) Op { return Op{Kind: OpPut, Item: it, Cond: cond} }

// Add changes the counter of k by delta under cond; with nonNegative the result
// must stay >= 0.
func Add(k Key, delta int64, nonNegative bool, cond Cond) Op {
	return Op{Kind: OpAdd, Item: Item{Key: k}, Delta: delta, NonNegative: nonNegative, Cond: cond}
}

// Delete removes k under cond.
func Delete(k Key, cond Cond) Op { return Op{Kind: OpDelete, Item: Item{Key: k}, Cond: cond} }

// Check asserts cond on k without writing (transactions only).
func Check(k Key, cond Cond) Op { return Op{Kind: OpCheck, Item: Item{Key: k}, Cond: cond} }

// Query reads one partition in sort-key order.
type Query struct {
	Table string
	PK    string
	// SK range, both optional and inclusive. Prefix, when set, further requires
	// begins_with(SK, Prefix) and must not be combined with From/To.
	From, To string
	Prefix   string
	Desc     bool   // newest first when SKs are time-ordered
	Limit    int    // 1..MaxQueryLimit; required
	Cursor   string // opaque, from a previous Page.Next
}

// Page is one page of a query. Next is empty when there is nothing more.
// A page may hold fewer than Limit items (expired ones are dropped) and still
// have a Next.
type Page struct {
	Items []Item
	Next  string
}

// Store is the port.
type Store interface {
	// Get is a strongly consistent read. Missing or expired: ErrNotFound.
	Get(ctx context.Context, k Key) (Item, error)
	// Write applies one op (a single-item call) or several ops all-or-nothing
	// (a transaction; at most MaxTransactOps; no two ops on one key; OpCheck
	// only here). A failed condition returns *ConditionFailedError.
	Write(ctx context.Context, ops ...Op) error
	// Query reads one partition.
	Query(ctx context.Context, q Query) (Page, error)
	// Close releases the store.
	Close() error
}

// ErrNotFound is returned by Get for a missing or expired item.
var ErrNotFound = errors.New("store: item not found")

// ErrInvalid marks a misuse of the port (bad query, bad transaction shape).
var ErrInvalid = errors.New("store: invalid request")

// ConditionFailedError reports which op of a Write failed its condition, and
// the item as it stood then (nil when absent), so callers need no second read.
type ConditionFailedError struct {
	Index   int
	Current *Item
}

func (e *ConditionFailedError) Error() string {
	return fmt.Sprintf("store: condition failed on op %d", e.Index)
}

// IsConditionFailed reports whether err is a failed condition; it returns the
// detail when it is.
func IsConditionFailed(err error) (*ConditionFailedError, bool) {
	var c *ConditionFailedError
	if errors.As(err, &c) {
		return c, true
	}
	return nil, false
}

// EncodeCursor and DecodeCursor give both adapters one cursor format: the
// last sort key returned, base64url. Cursors are opaque to callers.
func EncodeCursor(lastSK string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(lastSK))
}

func DecodeCursor(c string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) == 0 || len(b) > MaxSKSize {
		return "", fmt.Errorf("%w: malformed cursor", ErrInvalid)
	}
	return string(b), nil
}

// Validate checks a query's shape; adapters call it first.
func (q Query) Validate() error {
	switch {
	case q.Table == "" || q.PK == "":
		return fmt.Errorf("%w: query needs table and pk", ErrInvalid)
	case q.Limit < 1 || q.Limit > MaxQueryLimit:
		return fmt.Errorf("%w: limit must be 1..%d", ErrInvalid, MaxQueryLimit)
	case q.Prefix != "" && (q.From != "" || q.To != ""):
		return fmt.Errorf("%w: prefix and range are exclusive", ErrInvalid)
	}
	return nil
}

// ValidateOps checks a write's shape; adapters call it first.
func ValidateOps(ops []Op) error {
	if len(ops) == 0 {
		return fmt.Errorf("%w: no ops", ErrInvalid)
	}
	if len(ops) > MaxTransactOps {
		return fmt.Errorf("%w: more than %d ops", ErrInvalid, MaxTransactOps)
	}
	seen := make(map[Key]bool, len(ops))
	total := 0
	for i, op := range ops {
		k := op.Item.Key
		if k.Table == "" || k.PK == "" || k.SK == "" {
			return fmt.Errorf("%w: op %d needs table, pk and sk", ErrInvalid, i)
		}
		if len(k.PK) > MaxPKSize || len(k.SK) > MaxSKSize {
			return tooLarge("op %d: key of %d+%d bytes", i, len(k.PK), len(k.SK))
		}
		if strings.IndexByte(k.PK, 0) >= 0 {
			return &apierr.Error{Kind: apierr.Invalid, Code: "parameter_invalid", Op: "store.Write",
				Message: "the request holds a NUL character where none can be stored",
				Err:     fmt.Errorf("%w: op %d: pk holds a NUL byte", ErrKeyInvalid, i)}
		}
		// An OpAdd without Data keeps the stored body, which fitted when written.
		if op.Kind == OpPut || (op.Kind == OpAdd && op.Item.Data != nil) {
			size := ItemSize(op.Item)
			if size > MaxItemSize {
				return tooLarge("op %d: %s is %d bytes", i, k, size)
			}
			total += size
		} else {
			total += len(k.PK) + len(k.SK)
		}
		if seen[k] {
			return fmt.Errorf("%w: two ops on %s", ErrInvalid, k)
		}
		seen[k] = true
		switch op.Kind {
		case OpPut, OpAdd, OpDelete:
		case OpCheck:
			if len(ops) == 1 {
				return fmt.Errorf("%w: a check needs a transaction", ErrInvalid)
			}
			if op.Cond.Kind == CondNone {
				return fmt.Errorf("%w: a check needs a condition", ErrInvalid)
			}
		default:
			return fmt.Errorf("%w: op %d has no kind", ErrInvalid, i)
		}
	}
	if total > MaxTransactSize {
		return tooLarge("the transaction is %d bytes", total)
	}
	return nil
}

// ErrKeyInvalid marks a write whose partition key holds a NUL byte, which
// the embedded adapter's key layout cannot store; DynamoDB could, but the
// port refuses it on both so they behave alike. Like ErrTooLarge it comes
// wrapped in an apierr of kind Invalid.
var ErrKeyInvalid = errors.New("store: invalid key")

// KeyFits reports whether k can hold an item: within the key limits and no
// NUL byte in PK. A key that does not fit holds nothing, so reads answer not
// found (a query, an empty page) without asking the backend.
func KeyFits(k Key) bool {
	return len(k.PK) <= MaxPKSize && len(k.SK) <= MaxSKSize && strings.IndexByte(k.PK, 0) < 0
}

// Clock lets tests move time; adapters use it for expiry checks.
type Clock func() time.Time

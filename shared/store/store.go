// Package store is the storage port: the few operations that both adapters
// (DynamoDB and the embedded single-file store) offer with identical semantics.
// Business packages depend on this package only, never on an adapter.
//
// Data model: logical tables of items keyed by (PK, SK), both strings. An item
// carries an opaque Data body (JSON by convention), a signed 64-bit counter N
// for atomic adds, a store-managed Version (1 on create, +1 on every write),
// and an optional expiry. Expired items are treated as absent everywhere (Get,
// Query, conditions), in code, whether or not the backend has reaped them yet.
//
// What the port accepts, identically on both adapters (the contract suite's
// Parity and Counters tests prove each rule on both):
//
//   - Keys: PK of 1 to MaxPKSize bytes, SK of 1 to MaxSKSize bytes, both
//     valid UTF-8 with no NUL (U+0000). DynamoDB would silently replace
//     invalid UTF-8 with U+FFFD (two keys would become one) and the embedded
//     layout separates PK from SK with a 0x00 byte (NUL is refused in SK too:
//     one rule for every key), so the port refuses both on every adapter: a
//     write is an Invalid apierr wrapping ErrKeyInvalid (a 400, never a 5xx)
//     and a read of such a key finds nothing. Any other character (controls,
//     bidi marks, U+FFFD, emoji) is stored and sorted by its UTF-8 bytes
//     alike. Query bounds (From, To, Prefix) and cursors follow the same rule.
//   - Data: any bytes (NUL and invalid UTF-8 included), as long as the item
//     fits MaxItemSize by ItemSize and a transaction MaxTransactSize: an
//     Invalid apierr wrapping ErrTooLarge otherwise.
//   - Counters: N is any int64. An add never wraps or passes its bound: N +
//     Delta must stay within [-Op.Max, Op.Max] (the whole int64 range when Max
//     is 0), checked only in the direction Delta moves N (Delta may not be
//     MinInt64: ErrInvalid); otherwise nothing is written and Write returns an
//     Invalid apierr wrapping ErrOutOfRange. The DynamoDB adapter puts the
//     bound in the update's condition, since DynamoDB numbers have 38 digits
//     and would go past int64 silently.
package store

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate/shared/platform/apierr"
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

// StreamedTables are the logical tables whose changes are streamed: a
// DynamoDB stream (NEW_IMAGE) on AWS, the embedded change feed locally. The
// one list that the DynamoDB adapter's CreateTables, the embedded feed, the
// registry's check of stream consumers and the template tests read.
var StreamedTables = []string{TableEvents}

// Streamed reports whether table is one of StreamedTables.
func Streamed(table string) bool {
	for _, t := range StreamedTables {
		if t == table {
			return true
		}
	}
	return false
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
	return apierr.New(CodeTooLarge, "the record is too large to store (at most 400 KB per record); send less data").
		Because("store.Write", fmt.Errorf("%w: "+format, append([]any{ErrTooLarge}, args...)...))
}

// ErrOutOfRange marks an OpAdd that would take N past its bound (Op.Max, or
// the int64 range). The error returned is an apierr of kind Invalid wrapping
// it (code total_out_of_range): the amount came from the caller, so the answer
// is a 400. Callers that own the bound (the ledger's balances) turn it into
// their own message.
var ErrOutOfRange = errors.New("store: counter out of range")

// OutOfRange is the error a Write returns when op i breaks its bound.
func OutOfRange(i int, k Key) error {
	return apierr.New(CodeOutOfRange, "the amount would take a stored total past its maximum").
		Because("store.Write", fmt.Errorf("%w: op %d on %s", ErrOutOfRange, i, k))
}

// Verdict is how one op fares against the item it would change.
type Verdict int

const (
	Holds      Verdict = iota // the op may run
	CondFails                 // Cond or NonNegative does not hold: *ConditionFailedError
	OutOfBound                // an add past its bound: ErrOutOfRange
)

// Judge decides op over live (nil when absent or expired), in the order
// every adapter reports: the condition, then NonNegative, then the bound. The
// embedded adapter runs it before writing; the DynamoDB adapter runs it on the
// item a failed condition returns, to tell a bound from a condition.
func Judge(op Op, live *Item) Verdict {
	switch op.Cond.Kind {
	case CondAbsent:
		if live != nil {
			return CondFails
		}
	case CondExists:
		if live == nil {
			return CondFails
		}
	case CondVersion:
		if live == nil || live.Version != op.Cond.Version {
			return CondFails
		}
	}
	if op.Kind != OpAdd {
		return Holds
	}
	var n int64
	if live != nil {
		n = live.N
	}
	// ValidateOps keeps Delta > MinInt64, so -Delta and the limits below
	// cannot overflow.
	if op.NonNegative && n < -op.Delta {
		return CondFails
	}
	if limit, upper, ok := op.AddLimit(); ok && (upper && n > limit || !upper && n < limit) {
		return OutOfBound
	}
	return Holds
}

// AddLimit is the bound an OpAdd puts on N before the add: N <= limit when
// upper, N >= limit otherwise; ok is false when Delta is 0 (nothing moves).
func (op Op) AddLimit() (limit int64, upper, ok bool) {
	hi, lo := int64(math.MaxInt64), int64(math.MinInt64)
	if op.Max > 0 {
		hi, lo = op.Max, -op.Max
	}
	switch {
	case op.Delta > 0:
		return hi - op.Delta, true, true
	case op.Delta < 0:
		return lo - op.Delta, false, true
	}
	return 0, false, false
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
	// Max bounds OpAdd's result to [-Max, Max] in the direction Delta moves N
	// (an add over a counter already past the bound may still bring it back);
	// 0 means the int64 range. Breaking it is ErrOutOfRange, not a failed
	// condition: it is the caller's amount that is too large.
	Max int64
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

// Pipeliner is a store that can take a write now and give its verdict later,
// committing writes in the order they were handed over (the embedded store's
// group commit). A caller that serialises writes on one item behind a lock
// hands its write over, releases the lock and then waits: the next holder's
// write, built on the predicted outcome of the first, lands after it in the
// same commit instead of waiting for the first commit to end. The verdict is
// Write's. The DynamoDB adapter is one too: writes chained on one versioned
// counter share a TransactWriteItems call (dynamostore's combine.go).
type Pipeliner interface {
	Submit(ctx context.Context, ops ...Op) (wait func() error, err error)
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
	case !keyText(q.From) || !keyText(q.To) || !keyText(q.Prefix):
		return fmt.Errorf("%w: a sort-key bound is not valid UTF-8 or holds NUL", ErrInvalid)
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
		if !keyText(k.PK) || !keyText(k.SK) {
			return apierr.New(apierr.CodeParameterInvalid, "the request holds a NUL character or invalid UTF-8 where neither can be stored").
				Because("store.Write", fmt.Errorf("%w: op %d: a key is not valid UTF-8 or holds a NUL byte", ErrKeyInvalid, i))
		}
		if op.Kind == OpAdd && (op.Delta == math.MinInt64 || op.Max < 0) {
			return fmt.Errorf("%w: op %d: delta must be above MinInt64 and max not negative", ErrInvalid, i)
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

// ErrKeyInvalid marks a write whose key holds a NUL byte or invalid UTF-8
// (see the package comment). Like ErrTooLarge it comes wrapped in an apierr
// of kind Invalid.
var ErrKeyInvalid = errors.New("store: invalid key")

// KeyFits reports whether k can hold an item: within the key limits, valid
// UTF-8 and no NUL byte. A key that does not fit holds nothing, so reads
// answer not found (a query, an empty page) without asking the backend.
func KeyFits(k Key) bool {
	return len(k.PK) <= MaxPKSize && len(k.SK) <= MaxSKSize && keyText(k.PK) && keyText(k.SK)
}

// keyText reports whether s may appear in a key: valid UTF-8 without NUL.
func keyText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// Clock lets tests move time; adapters use it for expiry checks.
type Clock func() time.Time

// The codes of what the port refuses of the caller's data.
var (
	CodeTooLarge = apierr.Register(apierr.CodeInfo{Name: "item_too_large", Kind: apierr.Invalid,
		Meaning: "The record would be larger than can be stored (400 KB); send less data."})
	CodeOutOfRange = apierr.Register(apierr.CodeInfo{Name: "total_out_of_range", Kind: apierr.Invalid,
		Meaning: "The amount would take a stored total past its maximum."})
)

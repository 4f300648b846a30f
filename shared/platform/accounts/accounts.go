// Package accounts holds the account (merchant or reseller) record: who owns
// every other record, its mode (test or live), and its default API version.
package accounts

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/version"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
)

// Mode separates sandbox data from real money.
type Mode string

const (
	Test Mode = "test"
	Live Mode = "live"
)

// Valid reports whether m is a known mode.
func (m Mode) Valid() bool { return m == Test || m == Live }

// Account is one merchant or reseller.
type Account struct {
	ID              string            `json:"id"`
	Name            string            `json:"name"`
	MerchantAccount string            `json:"merchant_account"` // checkout's merchantAccount; unique per account
	Mode            Mode              `json:"mode"`
	Country         string            `json:"country,omitempty"`
	Email           string            `json:"email,omitempty"`
	DefaultVersion  string            `json:"default_version"`
	Metadata        map[string]string `json:"metadata"`
	CreatedAt       time.Time         `json:"created_at"`
	// Pair is the account of the other mode it is linked to (a merchant's
	// live account and its test account, as one provider account holds
	// both): the dashboard lets a user of one switch to the other. Each
	// account keeps its own data; nothing is shared but the link.
	Pair string `json:"pair,omitempty"`
}

// Repo reads and writes accounts.
type Repo struct {
	st    store.Store
	clock func() time.Time
	// decoded spares the decoding of an account read unchanged since the
	// last read (store.Decoded): every request reads its account.
	decoded store.Decoded[Account]
}

// NewRepo builds a repo; nil clock means time.Now.
func NewRepo(st store.Store, clock func() time.Time) *Repo {
	if clock == nil {
		clock = time.Now
	}
	return &Repo{st: st, clock: clock}
}

func accountKey(id string) store.Key {
	return store.Key{Table: store.TableAccounts, PK: "acct#" + id, SK: "profile"}
}

// indexKey is the account's entry in the accounts index: acctidx#<shard> /
// <account id>, put when the account is created, so what must visit every
// account (the ledger's check) reads partitions, never a Scan.
func indexKey(id string) store.Key {
	return store.Key{Table: store.TableAccounts, PK: "acctidx#" + strconv.Itoa(dueindex.Shard(id)), SK: id}
}

// EachID calls fn with the id of every account created since the index
// was (the accounts index, shard by shard, paged; no Scan), stopping at
// fn's first error. Errors: Unavailable, fn's.
func EachID(ctx context.Context, st store.Store, fn func(id string) error) error {
	for shard := range dueindex.Shards {
		q := store.Query{Table: store.TableAccounts, PK: "acctidx#" + strconv.Itoa(shard), Limit: store.MaxQueryLimit}
		for {
			page, err := st.Query(ctx, q)
			if err != nil {
				return apierr.Wrap("accounts.EachID", apierr.Unavailable, err)
			}
			for _, it := range page.Items {
				if err := fn(it.SK); err != nil {
					return err
				}
			}
			if page.Next == "" {
				break
			}
			q.Cursor = page.Next
		}
	}
	return nil
}

// merchantAccountKey reserves a merchantAccount name so two accounts never
// share one (checkout matches it against the caller).
func merchantAccountKey(name string) store.Key {
	return store.Key{Table: store.TableAccounts, PK: "macct#" + strings.ToLower(name), SK: "name"}
}

// NewAccount is what Create needs.
type NewAccount struct {
	Name            string
	MerchantAccount string // defaults to a name derived from Name
	Mode            Mode
	Country         string
	Email           string
}

// Create stores a new account, reserving its merchantAccount name, and its
// entry in the accounts index, in one transaction.
func (r *Repo) Create(ctx context.Context, in NewAccount) (*Account, error) {
	if strings.TrimSpace(in.Name) == "" {
		return nil, apierr.Missing("name")
	}
	if !in.Mode.Valid() {
		return nil, apierr.Invalidf("mode", "mode must be test or live")
	}
	a := &Account{
		ID:              ids.New(),
		Name:            in.Name,
		MerchantAccount: in.MerchantAccount,
		Mode:            in.Mode,
		Country:         in.Country,
		Email:           in.Email,
		DefaultVersion:  version.Current,
		Metadata:        map[string]string{},
		CreatedAt:       r.clock().UTC().Truncate(time.Second),
	}
	if a.MerchantAccount == "" {
		a.MerchantAccount = derivedMerchantAccount(in.Name, a.ID)
	}
	data, err := json.Marshal(a)
	if err != nil {
		return nil, apierr.Wrap("accounts.Create", apierr.Internal, err)
	}
	claim, err := json.Marshal(map[string]string{"account_id": a.ID})
	if err != nil {
		return nil, apierr.Wrap("accounts.Create", apierr.Internal, err)
	}
	err = r.st.Write(ctx,
		store.Put(store.Item{Key: accountKey(a.ID), Data: data}, store.IfAbsent),
		store.Put(store.Item{Key: merchantAccountKey(a.MerchantAccount), Data: claim}, store.IfAbsent),
		store.Put(store.Item{Key: indexKey(a.ID), Data: []byte("{}")}, store.IfAbsent),
	)
	if cf, ok := store.IsConditionFailed(err); ok && cf.Index == 1 {
		return nil, apierr.New(CodeMerchantAccountTaken, "merchant account %q is taken", a.MerchantAccount)
	}
	if err != nil {
		return nil, apierr.Wrap("accounts.Create", apierr.Internal, err)
	}
	return a, nil
}

func derivedMerchantAccount(name, id string) string {
	var b strings.Builder
	for _, r := range name {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String() + "_" + strings.ReplaceAll(id, "-", "")[20:]
}

// Get reads one account; a missing one is NotFound.
func (r *Repo) Get(ctx context.Context, id string) (*Account, error) {
	a, _, err := r.get(ctx, id)
	return a, err
}

func (r *Repo) get(ctx context.Context, id string) (*Account, int64, error) {
	it, err := r.st.Get(ctx, accountKey(id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, 0, apierr.NotFoundf("no such account: %s", id)
	}
	if err != nil {
		return nil, 0, apierr.Wrap("accounts.Get", apierr.Internal, err)
	}
	a, err := r.decoded.Decode(it.Key, it.Data)
	if err != nil {
		return nil, 0, apierr.Wrap("accounts.Get", apierr.Internal, err)
	}
	a.Metadata = maps.Clone(a.Metadata) // the caller's to change
	return &a, it.Version, nil
}

// Update applies fn to the account under optimistic concurrency, together
// with any extra ops (for example the key records that copy account fields).
func (r *Repo) Update(ctx context.Context, id string, fn func(*Account) ([]store.Op, error)) (*Account, error) {
	var out *Account
	err := store.Race{Op: "accounts.Update", What: "account " + id, Attempts: 5}.Run(ctx, func(int) error {
		a, v, err := r.get(ctx, id)
		if err != nil {
			return err
		}
		extra, err := fn(a)
		if err != nil {
			return err
		}
		data, err := json.Marshal(a)
		if err != nil {
			return apierr.Wrap("accounts.Update", apierr.Internal, err)
		}
		ops := append([]store.Op{store.Put(store.Item{Key: accountKey(id), Data: data}, store.IfVersion(v))}, extra...)
		err = r.st.Write(ctx, ops...)
		if _, ok := store.IsConditionFailed(err); ok {
			return store.Lost() // the account (or a record copied with it) changed
		}
		if err != nil {
			return apierr.Wrap("accounts.Update", apierr.Internal, err)
		}
		out = a
		return nil
	})
	return out, err
}

// ValidateVersion is the check shared by every place that sets a version.
func ValidateVersion(v string) error {
	if !version.Known(v) {
		return apierr.Invalidf("version", "unknown version %q; known versions: %s", v, version.List())
	}
	return nil
}

// Pair links a live account and a test account (Account.Pair on both, in
// one transaction). Pairing the same two again is a no-op. Errors: NotFound,
// Invalid (mode_mismatch: liveID must be live and testID test), Conflict
// (account_paired: either is paired to another account; or a concurrent
// change), Internal.
func (r *Repo) Pair(ctx context.Context, liveID, testID string) (live, test *Account, err error) {
	err = store.Race{Op: "accounts.Pair", What: "accounts " + liveID + " and " + testID, Attempts: 5}.Run(ctx, func(int) error {
		l, lv, err := r.get(ctx, liveID)
		if err != nil {
			return err
		}
		t, tv, err := r.get(ctx, testID)
		if err != nil {
			return err
		}
		if l.Mode != Live || t.Mode != Test {
			return apierr.New(CodeModeMismatch, "pair a live account with a test account (%s is %s, %s is %s)", l.ID, l.Mode, t.ID, t.Mode)
		}
		if l.Pair == t.ID && t.Pair == l.ID {
			live, test = l, t
			return nil
		}
		if l.Pair != "" || t.Pair != "" {
			return apierr.New(CodePaired, "an account is paired to another account already")
		}
		l.Pair, t.Pair = t.ID, l.ID
		ld, err := json.Marshal(l)
		if err != nil {
			return apierr.Wrap("accounts.Pair", apierr.Internal, err)
		}
		td, err := json.Marshal(t)
		if err != nil {
			return apierr.Wrap("accounts.Pair", apierr.Internal, err)
		}
		err = r.st.Write(ctx,
			store.Put(store.Item{Key: accountKey(l.ID), Data: ld}, store.IfVersion(lv)),
			store.Put(store.Item{Key: accountKey(t.ID), Data: td}, store.IfVersion(tv)))
		if _, ok := store.IsConditionFailed(err); ok {
			return store.Lost()
		}
		if err != nil {
			return apierr.Wrap("accounts.Pair", apierr.Internal, err)
		}
		live, test = l, t
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return live, test, nil
}

// Paired reports whether a and b are each other's pair.
func Paired(a, b *Account) bool {
	return a != nil && b != nil && a.Pair == b.ID && b.Pair == a.ID && a.Mode != b.Mode
}

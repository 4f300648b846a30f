package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/listing"
	"github.com/paygate/paygate/shared/store"
)

// Balance is one stored balance of the books.
type Balance struct {
	Currency  string
	Account   Account
	Amount    int64
	UpdatedAt time.Time
}

// Balances reads every balance of the merchant's partition of the account's
// books (one partition, paged; the beneficiaries' are BeneficiaryBalances),
// by currency then account. The external accounts keep none (External).
func Balances(ctx context.Context, st store.Store, accountID string) ([]Balance, error) {
	return balances(ctx, st, balancePK(accountID))
}

// BeneficiaryBalances reads the balances of one beneficiary of the account
// (beneficiary:<id> and beneficiary_reserved:<id>, every currency: one
// partition), by currency then account.
func BeneficiaryBalances(ctx context.Context, st store.Store, accountID, beneficiaryID string) ([]Balance, error) {
	return balances(ctx, st, beneficiaryBalancePK(accountID, beneficiaryID))
}

func balances(ctx context.Context, st store.Store, pk string) ([]Balance, error) {
	var out []Balance
	q := store.Query{Table: store.TableLedger, PK: pk, Limit: store.MaxQueryLimit}
	for {
		page, err := st.Query(ctx, q)
		if err != nil {
			return nil, apierr.Wrap("ledger.Balances", apierr.Unavailable, err)
		}
		for _, it := range page.Items {
			b, err := decodeBalance(it)
			if err != nil {
				return nil, err
			}
			if b.Account.External() {
				continue // left by books written before external accounts lost their counter: stale
			}
			out = append(out, b)
		}
		if page.Next == "" {
			break
		}
		q.Cursor = page.Next
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Currency != out[j].Currency {
			return out[i].Currency < out[j].Currency
		}
		return out[i].Account < out[j].Account
	})
	return out, nil
}

func decodeBalance(it store.Item) (Balance, error) {
	currency, account, ok := strings.Cut(it.SK, "#")
	if !ok {
		return Balance{}, apierr.Wrap("ledger.balance", apierr.Internal, errors.New("malformed balance key "+it.SK))
	}
	b := Balance{Currency: currency, Account: Account(account), Amount: it.N}
	if len(it.Data) == 0 {
		return b, nil // a counter with no body: no time to show
	}
	var body balanceBody
	if err := json.Unmarshal(it.Data, &body); err != nil {
		return Balance{}, apierr.Wrap("ledger.balance", apierr.Internal, err)
	}
	b.UpdatedAt = body.UpdatedAt
	return b, nil
}

// DecodeEntry reads a stored entry.
func DecodeEntry(it store.Item) (Entry, error) {
	var e Entry
	if err := json.Unmarshal(it.Data, &e); err != nil {
		return Entry{}, apierr.Wrap("ledger.DecodeEntry", apierr.Internal, err)
	}
	return e, nil
}

// EntryFilter narrows an entry list; zero fields match everything.
type EntryFilter struct {
	Type     EntryType
	Currency string
	From, To time.Time // created range, inclusive (a key range: ids are UUIDv7)
}

// Entries pages the account's entries newest first, limit at most per page,
// from cursor (a store cursor; the HTTP layer binds it to the list). The type
// and currency filters apply while paging, within listing.DefaultBudget
// entries per call. Errors: Invalid (cursor), Unavailable, Internal.
func Entries(ctx context.Context, st store.Store, accountID string, f EntryFilter, limit int, cursor string) ([]Entry, string, error) {
	q := store.Query{Table: store.TableLedger, PK: entryPK(accountID), Desc: true, Cursor: cursor}
	if f.Type == "" && f.Currency == "" {
		q.Limit = limit + 1
	}
	if !f.From.IsZero() {
		q.From = ids.Bound(f.From, false)
	}
	if !f.To.IsZero() {
		q.To = ids.Bound(f.To, true)
	}
	return listing.Collect(ctx, st, q, limit, listing.DefaultBudget, func(it store.Item) (Entry, bool, error) {
		e, err := DecodeEntry(it)
		if err != nil {
			return Entry{}, false, err
		}
		ok := (f.Type == "" || e.Type == f.Type) && (f.Currency == "" || e.Currency == f.Currency) &&
			(f.From.IsZero() || !e.CreatedAt.Before(f.From)) && (f.To.IsZero() || !e.CreatedAt.After(f.To))
		return e, ok, nil
	})
}

// eachEntry calls f on every entry of the account, oldest first.
func eachEntry(ctx context.Context, st store.Store, accountID string, f func(Entry) error) error {
	q := store.Query{Table: store.TableLedger, PK: entryPK(accountID), Limit: store.MaxQueryLimit}
	for {
		page, err := st.Query(ctx, q)
		if err != nil {
			return apierr.Wrap("ledger.entries", apierr.Unavailable, err)
		}
		for _, it := range page.Items {
			e, err := DecodeEntry(it)
			if err != nil {
				return err
			}
			if err := f(e); err != nil {
				return err
			}
		}
		if page.Next == "" {
			return nil
		}
		q.Cursor = page.Next
	}
}

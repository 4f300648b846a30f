// Package ledgertest reads the merchant's books (shared/domain/ledger) the way
// tests check them: one balance, the entries of one source record, the
// total of an external account. Each reads whole partitions, so none is for
// a request's path; the service reads the books through ledger's own
// functions (Balances, Entries, Check).
package ledgertest

import (
	"context"
	"errors"

	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// BalanceOf reads one balance (0 when none was ever posted). An external
// account keeps no counter: asking for one is a programming error
// (Internal); ExternalTotal derives it.
func BalanceOf(ctx context.Context, st store.Store, accountID, currency string, a ledger.Account) (int64, error) {
	if a.External() {
		return 0, &apierr.Error{Kind: apierr.Internal, Op: "ledgertest.BalanceOf",
			Err: errors.New("the external account " + string(a) + " keeps no counter: ExternalTotal sums its postings")}
	}
	it, err := st.Get(ctx, ledger.BalanceKey(accountID, currency, a))
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, apierr.Wrap("ledgertest.BalanceOf", apierr.Unavailable, err)
	}
	return it.N, nil
}

// ExternalTotal is what the account's entries posted to the external
// account a in currency sum to: negative for what came in through it
// (processor, bank), positive for what went out (paid_out). It reads every
// entry of the account's books (paged).
func ExternalTotal(ctx context.Context, st store.Store, accountID, currency string, a ledger.Account) (int64, error) {
	if !a.External() {
		return 0, &apierr.Error{Kind: apierr.Internal, Op: "ledgertest.ExternalTotal",
			Err: errors.New(string(a) + " is not an external account: BalanceOf reads its counter")}
	}
	var n int64
	err := eachEntry(ctx, st, accountID, func(e ledger.Entry) {
		if e.Currency == currency {
			for _, p := range e.Postings {
				if p.Account == a {
					n += p.Amount
				}
			}
		}
	})
	return n, err
}

// EntriesOf lists every entry tied to one source record, oldest first, by
// reading the account's entries.
func EntriesOf(ctx context.Context, st store.Store, accountID string, src ledger.Source) ([]ledger.Entry, error) {
	var out []ledger.Entry
	err := eachEntry(ctx, st, accountID, func(e ledger.Entry) {
		if e.Source == src {
			out = append(out, e)
		}
	})
	return out, err
}

// eachEntry calls f on every entry of the account, oldest first.
func eachEntry(ctx context.Context, st store.Store, accountID string, f func(ledger.Entry)) error {
	q := store.Query{Table: store.TableLedger, PK: ledger.EntryKey(accountID, "").PK, Limit: store.MaxQueryLimit}
	for {
		page, err := st.Query(ctx, q)
		if err != nil {
			return apierr.Wrap("ledgertest.entries", apierr.Unavailable, err)
		}
		for _, it := range page.Items {
			e, err := ledger.DecodeEntry(it)
			if err != nil {
				return err
			}
			f(e)
		}
		if page.Next == "" {
			return nil
		}
		q.Cursor = page.Next
	}
}

package prepaid

import (
	"context"
	"encoding/json"
	"time"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/listing"
	"github.com/paygate/paygate/shared/store"
)

// DepositFilter narrows a deposit list; zero fields match everything.
type DepositFilter struct {
	Status   Status
	Currency string
	From, To time.Time // created_at range, inclusive
}

// Deposits lists an account's deposits, newest first. Sort keys start with
// the creation time, so the created range is a sort-key range and only the
// other filters are applied while paging.
func (l *Ledger) Deposits(ctx context.Context, accountID string, f DepositFilter, limit int, cursor string) ([]Deposit, string, error) {
	q := store.Query{Table: store.TableLedger, PK: depositPK(accountID), Desc: true, Cursor: cursor}
	if !f.From.IsZero() {
		q.From = timeKey(f.From)
	}
	if !f.To.IsZero() {
		q.To = timeKey(f.To) + "~" // after every deposit of that instant
	}
	return listing.Collect(ctx, l.st, q, limit, listing.DefaultBudget, func(it store.Item) (Deposit, bool, error) {
		var d Deposit
		if err := json.Unmarshal(it.Data, &d); err != nil {
			return d, false, apierr.Wrap("ledger.Deposits", apierr.Internal, err)
		}
		ok := (f.Status == "" || d.Status == f.Status) && (f.Currency == "" || d.Currency == f.Currency) &&
			(f.From.IsZero() || !d.CreatedAt.Before(f.From)) && (f.To.IsZero() || !d.CreatedAt.After(f.To))
		return d, ok, nil
	})
}

// timeKey is a fixed-width UTC time that sorts as text in time order.
func timeKey(t time.Time) string { return t.UTC().Format("20060102T150405.000000000Z") }

// depositSK orders deposits by creation time (the ledger's clock), then id.
func depositSK(d *Deposit) string { return timeKey(d.CreatedAt) + "#" + d.ID }

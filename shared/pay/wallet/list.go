package wallet

import (
	"context"
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/listing"
	"github.com/paygate/paygate/shared/store"
)

// Filter narrows a list; zero values do not filter.
type Filter struct {
	Status         Status
	OrderReference string
	From, To       time.Time // createdAt range, inclusive
}

func (f Filter) filtered() bool { return f.Status != "" || f.OrderReference != "" }

func (f Filter) match(r *record) bool {
	return (f.Status == "" || r.Status == f.Status) && (f.OrderReference == "" || r.OrderReference == f.OrderReference) &&
		(f.From.IsZero() || !r.CreatedAt.Before(f.From)) && (f.To.IsZero() || !r.CreatedAt.After(f.To))
}

// List returns the account's transactions newest first: one partition, the
// created range as a key range (ids are time-ordered), the other filters
// applied to at most listing.DefaultBudget records per call. Errors:
// Invalid (cursor), Unavailable, Internal.
func (s *Service) List(ctx context.Context, accountID string, f Filter, p listing.Params) ([]Transaction, string, error) {
	q := store.Query{Table: store.TablePayments, PK: txPK(accountID), Desc: true, Cursor: p.Cursor}
	if !f.filtered() {
		q.Limit = p.Limit + 1
	}
	if !f.From.IsZero() {
		q.From = ids.Bound(f.From, false)
	}
	if !f.To.IsZero() {
		q.To = ids.Bound(f.To, true)
	}
	return listing.Collect(ctx, s.st, q, p.Limit, listing.DefaultBudget, func(it store.Item) (Transaction, bool, error) {
		r, err := decodeRecord(it)
		if err != nil {
			return Transaction{}, false, apierr.Wrap("wallet.List", apierr.Internal, err)
		}
		return r.View(), f.match(r), nil
	})
}

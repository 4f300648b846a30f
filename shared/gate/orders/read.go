package orders

import (
	"context"
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/listing"
	"github.com/paygate/paygate/shared/store"
)

// Get reads one order of the account; another account's order is NotFound.
func (s *Service) Get(ctx context.Context, accountID, id string) (*Order, error) {
	r, err := s.load(ctx, accountID, id)
	if err != nil {
		return nil, err
	}
	o := r.View()
	return &o, nil
}

// Filter narrows a list of orders; zero values do not filter.
type Filter struct {
	Status      Status
	ProductID   int64
	ExternalRef string
	From, To    time.Time // created_at range, inclusive
}

func (f Filter) filtered() bool { return f.Status != "" || f.ProductID != 0 || f.ExternalRef != "" }

func (f Filter) match(r *record) bool {
	return (f.Status == "" || r.Status == f.Status) &&
		(f.ProductID == 0 || r.ProductID == f.ProductID) &&
		(f.ExternalRef == "" || r.ExternalRef == f.ExternalRef) &&
		(f.From.IsZero() || !r.CreatedAt.Before(f.From)) &&
		(f.To.IsZero() || !r.CreatedAt.After(f.To))
}

// listBudget bounds the orders one list request examines; a filtered page may
// come back short, with a cursor to go on from where it stopped.
const listBudget = 1000

// List returns the account's orders newest first. The created range is a
// key range (ids are time-ordered); the other filters are applied to at most
// listBudget orders per call.
func (s *Service) List(ctx context.Context, accountID string, f Filter, p listing.Params) ([]Order, string, error) {
	q := store.Query{Table: store.TableOrders, PK: orderPK(accountID), Desc: true, Cursor: p.Cursor}
	if !f.filtered() {
		q.Limit = p.Limit + 1 // every order matches: one store page is enough
	}
	if !f.From.IsZero() {
		q.From = ids.Bound(f.From, false)
	}
	if !f.To.IsZero() {
		q.To = ids.Bound(f.To, true)
	}
	return listing.Collect(ctx, s.st, q, p.Limit, listBudget, func(it store.Item) (Order, bool, error) {
		r, err := decodeRecord(it)
		if err != nil {
			return Order{}, false, apierr.Wrap("orders.List", apierr.Internal, err)
		}
		return r.View(), f.match(r), nil
	})
}

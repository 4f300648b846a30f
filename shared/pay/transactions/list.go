package transactions

import (
	"context"
	"encoding/binary"
	"time"

	"github.com/google/uuid"

	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/listing"
	"github.com/paygate/paygate/shared/store"
)

// Filter narrows a list; zero values do not filter.
type Filter struct {
	Status         payments.Status
	Type           payments.Type
	OrderReference string
	CustomerID     string
	From, To       time.Time // created range, inclusive
}

func (f Filter) filtered() bool {
	return f.Status != "" || f.Type != "" || f.OrderReference != "" || f.CustomerID != ""
}

func (f Filter) match(p *payments.Payment) bool {
	return (f.Status == "" || p.Status == f.Status) && (f.Type == "" || p.Type == f.Type) &&
		(f.OrderReference == "" || p.MerchantReference == f.OrderReference) &&
		(f.CustomerID == "" || p.CustomerID == f.CustomerID) &&
		(f.From.IsZero() || !p.CreatedAt.Before(f.From)) && (f.To.IsZero() || !p.CreatedAt.After(f.To))
}

// List returns the account's transactions newest first: one partition, the
// created range as a key range (ids are time-ordered UUIDv7), the other
// filters applied to at most listing.DefaultBudget records per call (a
// filtered page may be short and still have has_more). With customer_id the
// partition is the customer's index (ByCustomer's), so the list reads only
// that customer's transactions. Errors: Invalid (cursor), Unavailable,
// Internal.
func (s *Service) List(ctx context.Context, accountID string, f Filter, p listing.Params) ([]Transaction, string, error) {
	if f.CustomerID != "" {
		return s.ByCustomer(ctx, accountID, f.CustomerID, f, p)
	}
	q := store.Query{Table: store.TablePayments, PK: payments.Key(accountID, "").PK, Desc: true, Cursor: p.Cursor}
	if !f.filtered() {
		q.Limit = p.Limit + 1
	}
	if !f.From.IsZero() {
		q.From = idBound(f.From, false)
	}
	if !f.To.IsZero() {
		q.To = idBound(f.To, true)
	}
	return listing.Collect(ctx, s.st, q, p.Limit, listing.DefaultBudget, func(it store.Item) (Transaction, bool, error) {
		pay, err := payments.Decode(it)
		if err != nil {
			return Transaction{}, false, err
		}
		return View(pay), f.match(pay), nil
	})
}

// ByOrderReference lists the transactions of one order reference (every
// attempt and refund), newest first, through the reference index: one query
// of the index partition and one read per transaction. Errors: as List.
func (s *Service) ByOrderReference(ctx context.Context, accountID, ref string, p listing.Params) ([]Transaction, string, error) {
	q := store.Query{Table: store.TablePayments, PK: payments.RefPK(accountID, ref), Desc: true, Cursor: p.Cursor, Limit: p.Limit + 1}
	return listing.Collect(ctx, s.st, q, p.Limit, p.Limit+1, func(it store.Item) (Transaction, bool, error) {
		pay, err := s.repo.Get(ctx, accountID, it.SK)
		if apierr.Is(err, apierr.NotFound) {
			return Transaction{}, false, nil // the index is written with the record; a record deleted by hand is skipped
		}
		if err != nil {
			return Transaction{}, false, err
		}
		return View(pay), true, nil
	})
}

// ByCustomer lists a customer's transactions (payments and their refunds)
// matching f, newest first, through the customer index (payments.CustomerPK):
// one query of the index partition and one read per transaction, at most
// customerBudget entries per call when f filters (a filtered page may be
// short and still have has_more). Errors: as List.
func (s *Service) ByCustomer(ctx context.Context, accountID, customerID string, f Filter, p listing.Params) ([]Transaction, string, error) {
	f.CustomerID = ""
	q := store.Query{Table: store.TablePayments, PK: payments.CustomerPK(accountID, customerID), Desc: true, Cursor: p.Cursor}
	budget := customerBudget
	if !f.filtered() && f.From.IsZero() && f.To.IsZero() {
		q.Limit, budget = p.Limit+1, p.Limit+1
	}
	if !f.From.IsZero() {
		q.From = idBound(f.From, false)
	}
	if !f.To.IsZero() {
		q.To = idBound(f.To, true)
	}
	return listing.Collect(ctx, s.st, q, p.Limit, budget, func(it store.Item) (Transaction, bool, error) {
		pay, err := s.repo.Get(ctx, accountID, it.SK)
		if apierr.Is(err, apierr.NotFound) {
			return Transaction{}, false, nil
		}
		if err != nil {
			return Transaction{}, false, err
		}
		return View(pay), f.match(pay), nil
	})
}

// customerBudget bounds the index entries a filtered customer list reads
// per call: each costs a GetItem.
const customerBudget = 200

// maxLinkTransactions bounds the transactions of one payment link read to
// pick the answer (a link takes payments until one succeeds, so it has few).
const maxLinkTransactions = 100

// ByPaymentLink answers a payment link's successful transaction (authorised,
// charged or refunded in part or in full), else its latest. Errors: NotFound
// when the link has none (or is another account's), Unavailable, Internal.
func (s *Service) ByPaymentLink(ctx context.Context, accountID, linkID string) (*Transaction, error) {
	page, err := s.st.Query(ctx, store.Query{Table: store.TablePayments, PK: payments.LinkPK(accountID, linkID), Desc: true, Limit: maxLinkTransactions})
	if err != nil {
		return nil, apierr.Wrap("transactions.ByPaymentLink", apierr.Unavailable, err)
	}
	var latest *payments.Payment
	for _, it := range page.Items {
		p, err := s.repo.Get(ctx, accountID, it.SK)
		if apierr.Is(err, apierr.NotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if p.Type != payments.TypePayment {
			continue
		}
		if p.Status.Succeeded() {
			t := View(p)
			return &t, nil
		}
		if latest == nil {
			latest = p
		}
	}
	if latest == nil {
		return nil, apierr.NotFoundf("payment link %s has no transaction", linkID)
	}
	t := View(latest)
	return &t, nil
}

// idBound is the smallest (or largest) UUIDv7 string of a millisecond.
func idBound(t time.Time, upper bool) string {
	var u uuid.UUID
	if upper {
		for i := range u {
			u[i] = 0xff
		}
	}
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(t.UnixMilli()))
	copy(u[0:6], b[2:8])
	return u.String()
}

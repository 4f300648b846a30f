package invoices

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/platform/listing"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
)

// Config builds a Service.
type Config struct {
	Store  store.Store
	Clock  func() time.Time // nil: time.Now
	Log    *slog.Logger     // nil: discard
	Ledger ledger.Policy    // how a paid invoice posts: the settlement delay and the fee, as captures
}

// Service keeps bank invoices.
type Service struct {
	st    store.Store
	clock func() time.Time
	log   *slog.Logger
	pol   ledger.Policy
}

// New builds the service.
func New(c Config) *Service {
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{st: c.Store, clock: c.Clock, log: c.Log, pol: c.Ledger}
}

// CreateInput is an invoice to create.
type CreateInput struct {
	AccountID string
	Livemode  bool
	Request   CreateRequest
	Idem      *idempotency.Call // required
}

// Create makes an invoice (created) and sends it to the payer's bank: the
// invoice and its expiry-index entry, with the Idempotency-Key's record, in
// one transaction. Errors: Invalid (naming the field), Unavailable;
// idempotency's.
func (s *Service) Create(ctx context.Context, in CreateInput) (*Invoice, error) {
	if !in.Idem.Keyed() {
		return nil, idempotency.ValidateKey("")
	}
	now := s.clock().UTC()
	inv, err := in.Request.validate(now)
	if err != nil {
		return nil, err
	}
	inv.ID, inv.Status, inv.Livemode, inv.CreatedAt, inv.UpdatedAt = ids.NewAt(now), Created, in.Livemode, now, now
	r := &record{Invoice: *inv, AccountID: in.AccountID}
	it, err := r.item()
	if err != nil {
		return nil, apierr.Wrap("invoices.Create", apierr.Internal, err)
	}
	view := r.view(now)
	err = idempotency.Commit(ctx, s.st, in.Idem, idempotency.Outcome{Created: true, Kind: Kind, Value: view},
		store.Put(it, store.IfAbsent), expiryIndex.Put(r.AccountID, r.ID, r.ExpiresAt))
	if err != nil {
		if idempotency.FromKey(err) {
			return nil, err
		}
		return nil, apierr.Wrap("invoices.Create", apierr.Unavailable, err)
	}
	return &view, nil
}

func (s *Service) load(ctx context.Context, accountID, id string) (*record, error) {
	it, err := s.st.Get(ctx, invoiceKey(accountID, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("no such invoice: %s", id)
	}
	if err != nil {
		return nil, apierr.Wrap("invoices.load", apierr.Unavailable, err)
	}
	return decode(it)
}

// Get reads one of the account's invoices (expired once expires_at passed
// unpaid); another account's is NotFound. Errors: NotFound, Unavailable,
// Internal.
func (s *Service) Get(ctx context.Context, accountID, id string) (*Invoice, error) {
	r, err := s.load(ctx, accountID, id)
	if err != nil {
		return nil, err
	}
	v := r.view(s.clock())
	return &v, nil
}

// Filter narrows a list; zero fields match everything.
type Filter struct {
	Status         Status
	OrderReference string
	From, To       time.Time
}

// List pages the account's invoices newest first: one partition, the
// created range as a key range, the status (as of now) and order reference
// applied while paging. Errors: Invalid (cursor), Unavailable, Internal.
func (s *Service) List(ctx context.Context, accountID string, f Filter, p listing.Params) ([]Invoice, string, error) {
	now := s.clock()
	q := store.Query{Table: store.TableLedger, PK: invoicePK(accountID), Desc: true, Cursor: p.Cursor}
	if f.Status == "" && f.OrderReference == "" {
		q.Limit = p.Limit + 1
	}
	if !f.From.IsZero() {
		q.From = ids.Bound(f.From, false)
	}
	if !f.To.IsZero() {
		q.To = ids.Bound(f.To, true)
	}
	return listing.Collect(ctx, s.st, q, p.Limit, listing.DefaultBudget, func(it store.Item) (Invoice, bool, error) {
		r, err := decode(it)
		if err != nil {
			return Invoice{}, false, err
		}
		v := r.view(now)
		ok := (f.Status == "" || v.Status == f.Status) && (f.OrderReference == "" || v.OrderReference == f.OrderReference) &&
			(f.From.IsZero() || !v.CreatedAt.Before(f.From)) && (f.To.IsZero() || !v.CreatedAt.After(f.To))
		return v, ok, nil
	})
}

// ActionInput names an invoice to act on.
type ActionInput struct {
	AccountID string
	ID        string
	Idem      *idempotency.Call
}

// ended is the 409 of an invoice that can no longer be paid or cancelled.
func ended(r *record, now time.Time) error {
	switch r.StatusAt(now) {
	case Paid:
		return apierr.New(CodeAlreadyPaid, "invoice %s is already paid", r.ID)
	case Expired:
		return apierr.New(CodeExpired, "invoice %s expired at %s unpaid", r.ID, r.ExpiresAt.Format(time.RFC3339))
	case Cancelled:
		return apierr.New(CodeCancelled, "invoice %s was cancelled", r.ID)
	}
	return nil
}

// end moves a created invoice to status at now: the invoice (conditioned on
// the version read), the expiry entry's removal, its event and, for a
// payment, the ledger's entries, with the key's record, in one transaction.
// A lost race re-reads (store.Race): what the winner did decides (one
// payment, or a 409). Errors: NotFound, Conflict (invoice_already_paid,
// invoice_expired, invoice_cancelled, resource_busy), Unavailable;
// idempotency's.
func (s *Service) end(ctx context.Context, in ActionInput, to Status) (*Invoice, error) {
	var out *Invoice
	race := store.Race{Op: "invoices.end", What: "invoice " + in.ID}
	err := race.Run(ctx, func(int) error {
		r, err := s.load(ctx, in.AccountID, in.ID)
		if err != nil {
			return err
		}
		now := s.clock().UTC()
		if err := ended(r, now); err != nil {
			if serr := in.Idem.Settled(ctx); serr != nil {
				return serr // a concurrent duplicate of this call won: replay it
			}
			return err
		}
		next := *r
		next.Status, next.UpdatedAt = to, now
		event := EventCancelled
		var b ledger.Batch
		if to == Paid {
			next.PaidAt, event = &now, EventPaid
			b.InvoicePayment(s.pol, ledger.InvoicePayment{AccountID: r.AccountID, Currency: r.Amount.Currency, Livemode: r.Livemode,
				InvoiceID: r.ID, Amount: r.Amount.Value}, now)
		} else {
			next.CancelledAt = &now
		}
		ops, err := s.endOps(&next, r, event, &b, now)
		if err != nil {
			return err
		}
		view := next.view(now)
		err = idempotency.Commit(ctx, s.st, in.Idem, idempotency.Outcome{Kind: Kind, Value: view}, ops...)
		switch {
		case err == nil:
			out = &view
			return nil
		case idempotency.FromKey(err):
			return err
		case ledger.IsOutOfRange(err):
			return apierr.New(CodeMerchantBalanceLimit, "this payment would take the merchant's balance past its maximum")
		}
		return race.Settle(err)
	})
	return out, err
}

// endOps are the writes that end an invoice: the record at the version
// read, the expiry entry's removal, the event, the ledger's ops.
func (s *Service) endOps(next, was *record, eventType string, b *ledger.Batch, now time.Time) ([]store.Op, error) {
	it, err := next.item()
	if err != nil {
		return nil, apierr.Wrap("invoices.endOps", apierr.Internal, err)
	}
	ev, err := eventOp(next.AccountID, next.Livemode, eventType, next.view(now), now)
	if err != nil {
		return nil, err
	}
	ops := []store.Op{store.Put(it, store.IfVersion(was.version)), expiryIndex.Delete(was.AccountID, was.ID, was.ExpiresAt), ev}
	lops, err := b.Ops(now)
	if err != nil {
		return nil, err
	}
	return append(ops, lops...), nil
}

// Cancel cancels an unpaid invoice (the payer's bank withdraws it). Errors:
// NotFound, Conflict (paid, expired or already cancelled), Unavailable;
// idempotency's.
func (s *Service) Cancel(ctx context.Context, in ActionInput) (*Invoice, error) {
	return s.end(ctx, in, Cancelled)
}

// Pay is the sandbox payer's bank paying the invoice (test keys only, the
// test helper): the invoice becomes paid and its amount the merchant's, as a
// capture's (bank -> pending, less the fee, then available once the
// settlement delay passed: at once in the sandbox), with invoice.paid, in
// one transaction. Paid twice, or after expires_at: one payment, then 409.
// Errors: NotFound, Conflict (invoice_already_paid, invoice_expired,
// invoice_cancelled, merchant_balance_limit_exceeded), Unavailable; idempotency's.
func (s *Service) Pay(ctx context.Context, in ActionInput) (*Invoice, error) {
	return s.end(ctx, in, Paid)
}

// eventOp is the put of an event of the account, in the change's transaction.
func eventOp(accountID string, livemode bool, typ string, data any, now time.Time) (store.Op, error) {
	return eventlog.Append(eventlog.Event{Type: typ, Account: accountID, Livemode: livemode, At: now, Data: data})
}

// ExpireInterval is how often the expirer runs: invoice.expired comes at
// most about this long after expires_at.
const ExpireInterval = time.Minute

// expirePerShard bounds the due entries one run handles per shard (the next
// run takes the rest).
const expirePerShard = 200

// ExpireResult is what one run did.
type ExpireResult struct {
	Expired int // invoices marked expired, each with its event
	Dropped int // entries of invoices that had ended otherwise, or are gone
}

// Expire is the InvoiceExpiryFunction's task: it reads the expiry index's
// due entries shard by shard (a Query each, never a Scan) and marks each
// invoice still created expired, with invoice.expired and the entry's
// removal, in one transaction conditioned on the version read; a payment or
// a cancel racing it needs the same version, so an invoice gets exactly one
// ending. Errors: Unavailable (the rest of the shards still ran).
func (s *Service) Expire(ctx context.Context) (ExpireResult, error) {
	now := s.clock().UTC()
	var res ExpireResult
	var firstErr error
	for shard := 0; shard < dueindex.Shards; shard++ {
		_, err := expiryIndex.VisitShard(ctx, s.st, shard, time.Time{}, now, expirePerShard, func(e dueindex.Entry) error {
			expired, err := s.expireOne(ctx, e, now)
			switch {
			case err != nil:
				if firstErr == nil {
					firstErr = err
				}
			case expired:
				res.Expired++
			default:
				res.Dropped++
			}
			return nil
		})
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if res.Expired+res.Dropped > 0 || firstErr != nil {
		s.log.Info("invoice expirer run", "expired", res.Expired, "dropped", res.Dropped, "error", firstErr)
	}
	return res, firstErr
}

func (s *Service) expireOne(ctx context.Context, e dueindex.Entry, now time.Time) (expired bool, _ error) {
	drop := func() error { return s.st.Write(ctx, store.Delete(e.Key, store.Always)) }
	if !ids.Valid(e.ID) {
		return false, drop()
	}
	race := store.Race{Op: "invoices.Expire", What: "invoice " + e.ID}
	err := race.Run(ctx, func(int) error {
		r, err := s.load(ctx, e.Account, e.ID)
		if apierr.Is(err, apierr.NotFound) {
			return drop()
		}
		if err != nil {
			return err
		}
		if r.Status != Created || now.Before(r.ExpiresAt) {
			if r.Status == Created {
				return nil // not due (the entry was written for another expiry): leave it
			}
			return drop()
		}
		next := *r
		next.Status, next.UpdatedAt, next.ExpiredAt = Expired, now, &r.ExpiresAt
		ops, err := s.endOps(&next, r, EventExpired, &ledger.Batch{}, now)
		if err != nil {
			return err
		}
		if err = race.Settle(s.st.Write(ctx, ops...)); err == nil {
			expired = true
		}
		return err
	})
	return expired, err
}

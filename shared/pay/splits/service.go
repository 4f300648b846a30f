package splits

import (
	"context"
	"errors"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/domain/metadata"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/platform/listing"
	"github.com/paygate/paygate/shared/store"
)

// Kind is the resource kind of a split request.
const Kind = payments.KindSplitRequest

// Config builds a Service.
type Config struct {
	Store store.Store
	Clock func() time.Time // nil: time.Now
}

// Service creates, reads, changes and deletes split requests.
type Service struct {
	st    store.Store
	repo  *payments.Repo
	clock func() time.Time
}

// New builds the service.
func New(c Config) *Service {
	if c.Clock == nil {
		c.Clock = time.Now
	}
	return &Service{st: c.Store, repo: payments.NewRepo(c.Store), clock: c.Clock}
}

// PartRequest is one part of a split request's body.
type PartRequest struct {
	Reference  *string `json:"reference" maxlen:"64"`
	Amount     *int64  `json:"amount"`
	Percentage *int64  `json:"percentage"`
	PaysFees   bool    `json:"pays_fees"`
}

// CreateRequest is the body of POST /v1/split-requests.
type CreateRequest struct {
	TransactionID  *string           `json:"transaction_id" maxlen:"36"`
	OrderReference *string           `json:"order_reference" maxlen:"128"`
	Parts          []PartRequest     `json:"parts"`
	Metadata       map[string]string `json:"metadata" maxlen:"500" maxkey:"40"`
}

// UpdateRequest is the body of POST /v1/split-requests/{id}: the parts
// (replacing them all) and the metadata (replacing it whole), each optional.
type UpdateRequest struct {
	Parts    []PartRequest     `json:"parts"`
	Metadata map[string]string `json:"metadata" maxlen:"500" maxkey:"40"`
}

// MaxOrderReference is the longest order reference (the transactions').
const MaxOrderReference = 128

func parts(in []PartRequest) ([]ledger.SplitPart, error) {
	if len(in) == 0 || len(in) > ledger.MaxSplitParts {
		return nil, apierr.Invalidf("parts", "parts must hold 1 to %d parts", ledger.MaxSplitParts)
	}
	out := make([]ledger.SplitPart, len(in))
	for i, p := range in {
		if p.Reference == nil {
			return nil, apierr.Missing(partParam(i, "reference"))
		}
		out[i] = ledger.SplitPart{Reference: *p.Reference, Amount: p.Amount, Percentage: p.Percentage, PaysFees: p.PaysFees}
	}
	return out, nil
}

func partParam(i int, f string) string { return "parts[" + strconv.Itoa(i) + "]." + f }

// CreateInput is a split request to create.
type CreateInput struct {
	AccountID string
	Request   CreateRequest
	Idem      *idempotency.Call
}

// changeAttempts bounds the re-reads when the payment changes under us
// (checkout authorising it meanwhile).
const changeAttempts = 8

// Create attaches a split request to a payment not yet captured, named by
// transaction_id or order_reference: the payment (conditioned on the
// version read) and the split's copy, with the key's record, in one
// transaction. The capture applies it. Errors: Invalid (naming the field:
// neither or both names, a part breaking its rules, parts above the payment:
// split_exceeds_payment), NotFound (no such payment of this account;
// another account's included), Conflict (payment_already_captured, a payment
// that can no longer be captured, split_request_exists,
// ambiguous_order_reference), Unavailable; idempotency's.
func (s *Service) Create(ctx context.Context, in CreateInput) (*payments.SplitRequest, error) {
	r := in.Request
	switch {
	case r.TransactionID == nil && r.OrderReference == nil:
		return nil, apierr.Missing("transaction_id")
	case r.TransactionID != nil && r.OrderReference != nil:
		return nil, apierr.Invalidf("order_reference", "name the payment by transaction_id or by order_reference, not both")
	case r.TransactionID != nil:
		if _, err := ids.ParseField("transaction_id", *r.TransactionID); err != nil {
			return nil, err
		}
	default:
		if n := utf8.RuneCountInString(*r.OrderReference); n < 1 || n > MaxOrderReference {
			return nil, apierr.Invalidf("order_reference", "order_reference must be 1 to %d characters", MaxOrderReference)
		}
	}
	ps, err := parts(r.Parts)
	if err != nil {
		return nil, err
	}
	if err := (&ledger.Split{Parts: ps}).Check(); err != nil {
		return nil, err // bad parts are a 400 whatever the payment
	}
	if err := metadata.Check(r.Metadata); err != nil {
		return nil, err
	}
	var out *payments.SplitRequest
	race := store.Race{Op: "splits.Create", What: "the payment", Attempts: changeAttempts}
	err = race.Run(ctx, func(int) error {
		p, err := s.payment(ctx, in.AccountID, r)
		if err != nil {
			return err
		}
		if p.Split != nil {
			return apierr.New(CodeExists, "payment %s already has split request %s: change or delete it", p.ID, p.Split.ID)
		}
		if err := capturable(p); err != nil {
			return err
		}
		now := s.clock().UTC()
		split := &ledger.Split{ID: ids.NewAt(now), Parts: clone(ps), Metadata: r.Metadata, CreatedAt: now, UpdatedAt: now}
		if err := split.Resolve(p.Amount); err != nil {
			return err
		}
		p.Split = split
		out, err = s.save(ctx, p, in.Idem, true)
		return err
	})
	return out, err
}

func clone(ps []ledger.SplitPart) []ledger.SplitPart { return (&ledger.Split{Parts: ps}).Clone().Parts }

// save writes p (its split changed) with the key's record.
func (s *Service) save(ctx context.Context, p *payments.Payment, idem *idempotency.Call, created bool) (*payments.SplitRequest, error) {
	ops, err := s.repo.SaveOps(p)
	if err != nil {
		return nil, err
	}
	view := payments.SplitView(p)
	err = idempotency.Commit(ctx, s.st, idem, idempotency.Outcome{Created: created, Kind: Kind, Value: view}, ops...)
	if err == nil {
		return &view, nil
	}
	if idempotency.FromKey(err) {
		return nil, err
	}
	return nil, store.Race{Op: "splits.save"}.Settle(err)
}

// capturable refuses a payment a split cannot apply to: not a payment, or
// already captured (its first capture would have applied the split), or in a
// status no capture follows.
func capturable(p *payments.Payment) error {
	if p.Type != payments.TypePayment {
		return apierr.New(payments.CodeStateConflict, "transaction %s is a %s, not a payment", p.ID, p.Type)
	}
	if p.ProcessedAmount > 0 {
		return apierr.New(CodePaymentAlreadyCaptured,
			"payment %s is %s: a split applies at capture, so it must be created before the first capture", p.ID, p.Status)
	}
	switch p.Status {
	case payments.Created, payments.RequiresAction, payments.Authorized:
		return nil
	}
	return apierr.New(payments.CodeStateConflict, "payment %s is %s and will not be captured", p.ID, p.Status)
}

// payment finds the payment a create names: by id, or the one payment of
// the order reference still awaiting capture.
func (s *Service) payment(ctx context.Context, accountID string, r CreateRequest) (*payments.Payment, error) {
	if r.TransactionID != nil {
		p, err := s.repo.Get(ctx, accountID, *r.TransactionID)
		if apierr.Is(err, apierr.NotFound) {
			e := apierr.NotFoundf("no such transaction: %s", *r.TransactionID)
			e.Param = "transaction_id"
			return nil, e
		}
		return p, err
	}
	page, err := s.st.Query(ctx, store.Query{Table: store.TablePayments, PK: payments.RefPK(accountID, *r.OrderReference), Limit: 100})
	if err != nil {
		return nil, apierr.Wrap("splits.payment", apierr.Unavailable, err)
	}
	var found, fallback *payments.Payment
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
		if capturable(p) != nil {
			fallback = p
			continue
		}
		if found != nil {
			return nil, apierr.New(CodeAmbiguousOrderReference, "more than one payment of this order reference awaits capture: name one by transaction_id")
		}
		found = p
	}
	switch {
	case found != nil:
		return found, nil
	case fallback != nil:
		return fallback, nil // refused by the caller with its status
	}
	e := apierr.NotFoundf("no payment has order reference %q", *r.OrderReference)
	e.Param = "order_reference"
	return nil, e
}

// Get reads one of the account's split requests; another account's is
// NotFound.
func (s *Service) Get(ctx context.Context, accountID, id string) (*payments.SplitRequest, error) {
	v, _, err := s.load(ctx, accountID, id)
	return v, err
}

func (s *Service) load(ctx context.Context, accountID, id string) (*payments.SplitRequest, string, error) {
	it, err := s.st.Get(ctx, payments.SplitKey(accountID, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, "", apierr.NotFoundf("no such split request: %s", id)
	}
	if err != nil {
		return nil, "", apierr.Wrap("splits.load", apierr.Unavailable, err)
	}
	v, paymentID, err := payments.DecodeSplit(it)
	if err != nil {
		return nil, "", err
	}
	return &v, paymentID, nil
}

// Filter narrows a list; zero fields match everything.
type Filter struct {
	Status        payments.SplitStatus
	TransactionID string
}

// List pages the account's split requests, newest first.
func (s *Service) List(ctx context.Context, accountID string, f Filter, p listing.Params) ([]payments.SplitRequest, string, error) {
	q := store.Query{Table: store.TablePayments, PK: payments.SplitPK(accountID), Desc: true, Cursor: p.Cursor}
	if f == (Filter{}) {
		q.Limit = p.Limit + 1
	}
	return listing.Collect(ctx, s.st, q, p.Limit, listing.DefaultBudget, func(it store.Item) (payments.SplitRequest, bool, error) {
		v, _, err := payments.DecodeSplit(it)
		if err != nil {
			return v, false, err
		}
		return v, (f.Status == "" || v.Status == f.Status) && (f.TransactionID == "" || v.TransactionID == f.TransactionID), nil
	})
}

// UpdateInput is a change of a split request.
type UpdateInput struct {
	AccountID string
	ID        string
	Request   UpdateRequest
	Idem      *idempotency.Call
}

// Update changes a split request's parts or metadata while no capture has
// applied it. Errors: Invalid (as Create), NotFound, Conflict
// (split_request_applied), Unavailable; idempotency's.
func (s *Service) Update(ctx context.Context, in UpdateInput) (*payments.SplitRequest, error) {
	var ps []ledger.SplitPart
	if in.Request.Parts != nil {
		var err error
		if ps, err = parts(in.Request.Parts); err != nil {
			return nil, err
		}
		if err := (&ledger.Split{Parts: ps}).Check(); err != nil {
			return nil, err
		}
	}
	if err := metadata.Check(in.Request.Metadata); err != nil {
		return nil, err
	}
	return s.change(ctx, in.AccountID, in.ID, in.Idem, func(p *payments.Payment, now time.Time) error {
		if ps != nil {
			next := p.Split.Clone()
			next.Parts = clone(ps)
			if err := next.Resolve(p.Amount); err != nil {
				return err
			}
			p.Split.Parts = next.Parts
		}
		if in.Request.Metadata != nil {
			p.Split.Metadata = in.Request.Metadata
		}
		p.Split.UpdatedAt = now
		return nil
	})
}

// Deleted is the answer of a delete.
type Deleted struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Deleted bool   `json:"deleted"`
}

// Delete removes a split request no capture has applied: the payment is
// captured undivided. Errors: NotFound, Conflict (split_request_applied),
// Unavailable.
func (s *Service) Delete(ctx context.Context, accountID, id string) (*Deleted, error) {
	_, err := s.change(ctx, accountID, id, nil, func(p *payments.Payment, _ time.Time) error {
		p.Split = nil
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Deleted{ID: id, Object: Kind, Deleted: true}, nil
}

// change applies mutate to the split request id on its payment, and writes
// the payment (conditioned on the version read) and the copy.
func (s *Service) change(ctx context.Context, accountID, id string, idem *idempotency.Call, mutate func(*payments.Payment, time.Time) error) (*payments.SplitRequest, error) {
	var out *payments.SplitRequest
	race := store.Race{Op: "splits.change", What: "split request " + id, Attempts: changeAttempts}
	err := race.Run(ctx, func(int) error {
		_, paymentID, err := s.load(ctx, accountID, id)
		if err != nil {
			return err
		}
		p, err := s.repo.Get(ctx, accountID, paymentID)
		if err != nil {
			return err
		}
		if p.Split == nil || p.Split.ID != id {
			return apierr.NotFoundf("no such split request: %s", id)
		}
		if p.Split.Applied() {
			return apierr.New(CodeApplied, "split request %s was applied by a capture of payment %s and can no longer change", id, p.ID)
		}
		if err := mutate(p, s.clock().UTC()); err != nil {
			return err
		}
		if p.Split == nil { // a delete
			ops, err := s.repo.SaveOps(p)
			if err != nil {
				return err
			}
			return race.Settle(s.st.Write(ctx, ops...))
		}
		out, err = s.save(ctx, p, idem, false)
		return err
	})
	return out, err
}

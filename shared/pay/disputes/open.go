package disputes

import (
	"context"
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/store"
)

// OpenInput is the sandbox's dispute of a captured payment
// (POST /test-helpers/transactions/{id}/dispute).
type OpenInput struct {
	AccountID     string
	TestMode      bool
	TransactionID string
	Amount        *int64     // nil: what is left of the payment (captured, not refunded)
	Reason        Reason     // "": General
	DueBy         *time.Time // nil: DefaultResponseWindow from now
	Idem          *idempotency.Call
}

// MaxAmount is 2^53, the documented maximum of an amount.
const MaxAmount = 1 << 53

// Open opens a dispute on a captured payment, as a cardholder's bank would
// through the card network (the sandbox's test helper; no live acquirer is
// wired). In one transaction: the dispute (needs_response, due_by), its due
// entry, the payment's mark, the hold of its amount and fee (ledger
// DisputeHold: never refused for lack of funds, what available lacks is
// owed), its dispute.created event and the Idempotency-Key's record.
// Answers the dispute (201). Errors: Forbidden (a live key), Invalid
// (amount: not positive, or above what is left: dispute_exceeds_balance;
// reason; due_by), NotFound (no such transaction, or another account's),
// Conflict (payment_refunded: the sandbox does not dispute a refunded
// payment; payment_not_captured; dispute_exists: a payment has one dispute;
// transaction_not_disputable: a refund), IdempotencyMismatch, Unavailable.
func (s *Service) Open(ctx context.Context, in OpenInput) (*Dispute, error) {
	if !in.TestMode {
		return nil, apierr.New(apierr.CodeTestModeOnly, "disputes are opened by the card network; the sandbox opens them for test keys only")
	}
	if !in.Idem.Keyed() {
		return nil, idempotency.ValidateKey("")
	}
	return s.openDispute(ctx, in)
}

// ProcessorChargeback is a chargeback a card connector's processor
// notified (shared/pay/processornotices): the issuer disputes a payment the
// connector authorised.
type ProcessorChargeback struct {
	AccountID     string
	TransactionID string
	Amount        int64 // minor units; 0 or more than is left: all that is left
}

// OpenFromProcessor opens the dispute of a processor's chargeback, as Open
// does (in live mode too: it is the card network's, not the sandbox's).
// A payment has one dispute: when it has one already (this chargeback
// notified again, or applied before), that dispute is the answer and
// nothing changes, so a notice applied twice opens one dispute. Errors: as
// Open's, but for Forbidden and IdempotencyMismatch.
func (s *Service) OpenFromProcessor(ctx context.Context, cb ProcessorChargeback) (*Dispute, error) {
	p, err := s.repo.Get(ctx, cb.AccountID, cb.TransactionID)
	if err != nil {
		return nil, err
	}
	if p.Dispute != nil {
		return s.Get(ctx, cb.AccountID, p.Dispute.ID)
	}
	in := OpenInput{AccountID: cb.AccountID, TransactionID: cb.TransactionID}
	if left := p.Balance(); cb.Amount > 0 && cb.Amount <= left {
		in.Amount = &cb.Amount
	}
	d, err := s.openDispute(ctx, in)
	if apierr.HasCode(err, CodeExists) { // opened by a concurrent copy of the notice
		if p, gerr := s.repo.Get(ctx, cb.AccountID, cb.TransactionID); gerr == nil && p.Dispute != nil {
			return s.Get(ctx, cb.AccountID, p.Dispute.ID)
		}
	}
	return d, err
}

// openDispute opens in's dispute (a merchant's key in in.Idem, or none for a
// processor's chargeback).
func (s *Service) openDispute(ctx context.Context, in OpenInput) (*Dispute, error) {
	if in.Reason == "" {
		in.Reason = General
	}
	if !in.Reason.Valid() {
		return nil, apierr.Invalidf("reason", "reason must be one of %v", Reasons)
	}
	if in.Amount != nil && (*in.Amount <= 0 || *in.Amount > MaxAmount) {
		return nil, apierr.Invalidf("amount", "amount must be an integer from 1 to 2^53 in minor units of the payment's currency")
	}
	var out *Dispute
	race := store.Race{Op: "disputes.Open", What: "transaction " + in.TransactionID, Attempts: changeAttempts}
	err := race.Run(ctx, func(attempt int) error {
		now := s.clock().UTC()
		due := now.Add(DefaultResponseWindow)
		if in.DueBy != nil {
			if !in.DueBy.After(now) || in.DueBy.After(now.Add(MaxResponseWindow)) {
				return apierr.Invalidf("due_by", "due_by must be in the future and at most 30 days away")
			}
			due = in.DueBy.UTC()
		}
		p, err := s.repo.Get(ctx, in.AccountID, in.TransactionID)
		if apierr.Is(err, apierr.NotFound) {
			return apierr.NotFoundf("no such transaction: %s", in.TransactionID)
		}
		if err != nil {
			return err
		}
		amount, err := disputable(p, in.Amount)
		if err != nil {
			if settled := in.Idem.Settled(ctx); settled != nil {
				return settled
			}
			return err
		}
		r := &record{ID: ids.NewAt(now), AccountID: in.AccountID, TransactionID: p.ID, MerchantReference: p.MerchantReference,
			Livemode: p.Livemode, Amount: amount, Fee: s.feeOf(p.Currency), Currency: p.Currency, Status: NeedsResponse,
			Reason: in.Reason, DueBy: due, CreatedAt: now, UpdatedAt: now}
		c := &step{rec: r, pay: p, last: attempt >= changeAttempts-2, event: EventCreated}
		f, err := s.funds(ctx, c)
		if err != nil {
			return err
		}
		r.Covered = c.batch.DisputeHold(c.move(), f, now)
		view, err := s.commit(ctx, c, in.Idem, true)
		if err == nil {
			out = &view
		}
		return err
	})
	return out, err
}

// disputable checks that p may be disputed for amount (nil: all that is
// left) and returns the amount.
func disputable(p *payments.Payment, amount *int64) (int64, error) {
	switch {
	case p.Type != payments.TypePayment:
		return 0, apierr.New(CodeTransactionNotDisputable, "transaction %s is a %s: only a payment can be disputed", p.ID, p.Type)
	case p.Dispute != nil:
		return 0, apierr.New(CodeExists, "payment %s already has dispute %s (%s)", p.ID, p.Dispute.ID, p.Dispute.Status)
	case p.Status == payments.Refunded:
		return 0, apierr.New(CodePaymentRefunded, "payment %s is refunded: the sandbox does not open a dispute on a refunded payment (nothing is left to claim back)", p.ID)
	case p.Status != payments.Charged && p.Status != payments.PartiallyRefunded:
		return 0, apierr.New(CodePaymentNotCaptured, "payment %s is %s: only a captured payment can be disputed", p.ID, p.Status)
	}
	left := p.Balance()
	if amount == nil {
		return left, nil
	}
	if *amount > left {
		return 0, apierr.New(CodeExceedsBalance, "amount is more than what is left of the payment (captured, not refunded): %d", left)
	}
	return *amount, nil
}

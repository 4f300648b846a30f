package transactions

import (
	"context"
	"log/slog"
	"time"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
)

// ExpireInterval is how often the authorisation expirer runs (its Schedule).
const ExpireInterval = 5 * time.Minute

// Config builds a Service.
type Config struct {
	Store store.Store
	Clock func() time.Time // nil: time.Now
	Log   *slog.Logger     // nil: discard
	// Ledger is how captures post to the merchant's books (settlement
	// delay, fee); the zero value is the sandbox's.
	Ledger ledger.Policy
	// Processor is the card processor that hears of every capture, cancel
	// and refund of a sandbox payment (required: the wiring chooses it);
	// Connectors, those of a payment a connector authorised.
	Processor  cards.Processor
	Connectors connectors.Directory
}

// Service reads transactions and moves their money.
type Service struct {
	st    store.Store
	repo  *payments.Repo
	clock func() time.Time
	log   *slog.Logger
	cards connectors.Cards
}

// New builds the service.
func New(c Config) *Service {
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Processor == nil {
		panic("transactions: Config.Processor is required")
	}
	return &Service{st: c.Store, repo: payments.NewRepo(c.Store).WithPolicy(c.Ledger), clock: c.Clock, log: c.Log,
		cards: connectors.Cards{Default: c.Processor, Directory: c.Connectors}}
}

// Get reads one of the account's transactions. Errors: NotFound (missing, or
// another account's), Unavailable, Internal.
func (s *Service) Get(ctx context.Context, accountID, id string) (*Transaction, error) {
	p, err := s.repo.Get(ctx, accountID, id)
	if err != nil {
		return nil, notFound(err, id)
	}
	t := View(p)
	return &t, nil
}

// History is every status change of one transaction, oldest first. Errors:
// as Get.
func (s *Service) History(ctx context.Context, accountID, id string) ([]HistoryEntry, error) {
	p, err := s.repo.Get(ctx, accountID, id)
	if err != nil {
		return nil, notFound(err, id)
	}
	return History(p), nil
}

// notFound words the payments repo's 404 as a transaction's.
func notFound(err error, id string) error {
	if apierr.Is(err, apierr.NotFound) {
		return apierr.NotFoundf("no such transaction: %s", id)
	}
	return err
}

// OpInput is a capture, cancel or refund of one transaction.
type OpInput struct {
	AccountID string
	ID        string
	Amount    *int64 // capture and refund: nil means all that is left
	Currency  string // optional: must be the transaction's when sent
	Final     bool   // capture: release the rest of the hold
	Reason    string // refund (and cancel): the merchant's reason
	RequestID string
	Idem      *idempotency.Call // required, unless KeyOptional
	// KeyOptional lets a change run without an Idempotency-Key: the Adyen
	// face (routes_adyen.go), where Adyen's libraries send the key only when the
	// merchant sets one. The Pay API routes require it.
	KeyOptional bool
	// Answer is the outcome recorded for the Idempotency-Key, so a retry
	// replays exactly what the first call answered (nil: 200 with the
	// transaction, the Pay API's answer). The Adyen face answers its own
	// modification shape.
	Answer func(Transaction) idempotency.Outcome

	via payments.Via // set by CancelByReference: the history says how the cancel was asked for
}

// MaxAmount is 2^53, the documented maximum of an amount: larger integers
// do not survive a JSON reader that reads numbers as doubles.
const MaxAmount = 1 << 53

// changeAttempts bounds the re-reads when the transaction changes under us:
// enough for a few dozen concurrent changes of one transaction to each get
// their own verdict (a success, or a 400/409 against the state they lost to)
// rather than a "busy" 409.
const changeAttempts = 40

// change is the one place a transaction's money moves: it reads the
// payment, lets apply change it (or refuse), and writes the payment,
// its history, its event, any new record (a refund) and the keyed call's
// record in one store transaction conditioned on the version read. Of any
// number of concurrent changes exactly one commits per version; the others
// read again and apply decides anew against the winner's state (20 refunds
// of 10%: the eleventh finds nothing left and is a 400).
func (s *Service) change(ctx context.Context, in OpInput, apply func(p *payments.Payment, now time.Time) (*payments.Payment, error)) (*Transaction, error) {
	if !in.Idem.Keyed() && !in.KeyOptional {
		return nil, idempotency.ValidateKey("")
	}
	if in.Amount != nil && (*in.Amount <= 0 || *in.Amount > MaxAmount) {
		return nil, apierr.Invalidf("amount", "amount must be an integer from 1 to 2^53 in minor units of the transaction's currency")
	}
	var out *Transaction
	var sent []payments.Modification // what the committed change asks of the processor
	var due time.Time
	race := store.Race{Op: "transactions.change", What: "transaction " + in.ID, Attempts: changeAttempts}
	err := race.Run(ctx, func(int) error {
		p, err := s.repo.Get(ctx, in.AccountID, in.ID)
		if err != nil {
			return notFound(err, in.ID)
		}
		if in.Currency != "" && in.Currency != p.Currency {
			return apierr.New(CodeCurrencyMismatch, "currency must be the transaction's (%s): amounts are in its minor units", p.Currency)
		}
		now := s.clock().UTC()
		before := len(p.History)
		ans, err := apply(p, now)
		if err != nil {
			// A duplicate of a call that just won (same key) replays the
			// winner's answer rather than failing against its state.
			if settled := in.Idem.Settled(ctx); settled != nil {
				return settled
			}
			return err
		}
		ops, err := s.repo.SaveOps(p)
		if err != nil {
			return err
		}
		// The processor hears of the change only once it is committed: each
		// modification's due entry commits with it and goes once the
		// processor received it, so a lost race sends nothing and a failed
		// call is sent again by the sweeper (Resend).
		mods := p.ModificationsSince(before)
		due = now.Add(ResendAfter)
		for _, m := range mods {
			ops = append(ops, payments.ModificationIndex.Put(m.Account, m.ID, due))
		}
		view := View(ans)
		outcome := idempotency.Outcome{Kind: Kind, Value: view}
		if in.Answer != nil {
			outcome = in.Answer(view)
		}
		err = idempotency.Commit(ctx, s.st, in.Idem, outcome, ops...)
		switch {
		case err == nil:
			out, sent = &view, mods
			return nil
		case idempotency.FromKey(err):
			return err
		}
		if e := ledger.Insufficient(err, ops, "amount"); e != nil {
			return e // a refund the available balance cannot cover
		}
		return race.Settle(err)
	})
	if err == nil {
		for _, m := range sent {
			s.send(ctx, m, due)
		}
	}
	return out, err
}

// Capture captures in.Amount (default: all that is capturable) of an
// authorised payment; partial captures may repeat until the authorised
// amount is used or one is Final. Answers the payment. Errors: Invalid
// (amount, currency), NotFound, Conflict (payment_state_conflict naming the
// status; transaction_busy), IdempotencyMismatch, Unavailable.
func (s *Service) Capture(ctx context.Context, in OpInput) (*Transaction, error) {
	return s.change(ctx, in, func(p *payments.Payment, now time.Time) (*payments.Payment, error) {
		return p, p.Capture(payments.Op{Amount: in.Amount, Final: in.Final, RequestID: in.RequestID}, now)
	})
}

// Cancel voids an authorised payment not captured; the hold is released.
// Answers the payment. Errors: as Capture.
func (s *Service) Cancel(ctx context.Context, in OpInput) (*Transaction, error) {
	return s.change(ctx, in, func(p *payments.Payment, now time.Time) (*payments.Payment, error) {
		return p, p.Cancel(payments.Op{Reason: in.Reason, RequestID: in.RequestID, Via: in.via}, now)
	})
}

// Refund refunds in.Amount (default: the whole balance) of a captured
// payment; partial refunds may repeat up to the captured amount. Answers the
// new refund transaction (type refund, parent_transaction_id the payment).
// Errors: as Capture (amount above the balance: Invalid
// refund_exceeds_balance naming amount).
func (s *Service) Refund(ctx context.Context, in OpInput) (*Transaction, error) {
	return s.change(ctx, in, func(p *payments.Payment, now time.Time) (*payments.Payment, error) {
		return p.Refund(payments.Op{Amount: in.Amount, Reason: in.Reason, RequestID: in.RequestID}, ids.New(), now)
	})
}

// Reverse undoes a payment whatever its state, as Adyen's reversal does:
// an authorisation with nothing captured is cancelled (the answer is the
// payment), a captured one is refunded in full, the rest of any open hold
// released (the answer is the refund). The choice is made against the state
// the change commits on, so a reversal racing a capture refunds what the
// capture took. Errors: as Capture and Refund (a payment already refunded
// in full, refused or cancelled is a 409 naming its status).
func (s *Service) Reverse(ctx context.Context, in OpInput) (*Transaction, error) {
	return s.change(ctx, in, func(p *payments.Payment, now time.Time) (*payments.Payment, error) {
		reason := in.Reason
		if reason == "" {
			reason = "reversal"
		}
		op := payments.Op{Reason: reason, RequestID: in.RequestID, Via: payments.ViaReversal}
		if p.Status == payments.Authorized {
			return p, p.Cancel(op, now)
		}
		return p.Refund(op, ids.New(), now)
	})
}

// UpdateAmount sets the authorised amount of a payment held for manual
// capture with nothing captured yet (payments.Payment.UpdateAmount).
// Answers the payment. Errors: Invalid (amount missing or out of range,
// currency), NotFound, Conflict (payment_state_conflict naming the status),
// IdempotencyMismatch, Unavailable.
func (s *Service) UpdateAmount(ctx context.Context, in OpInput) (*Transaction, error) {
	if in.Amount == nil {
		return nil, apierr.Missing("amount")
	}
	return s.change(ctx, in, func(p *payments.Payment, now time.Time) (*payments.Payment, error) {
		return p, p.UpdateAmount(*in.Amount, in.RequestID, now)
	})
}

// CancelByReference cancels the authorisation of an order reference (the
// payment's merchant reference), for a merchant that has no pspReference
// (its call timed out): the newest payment of the reference still
// authorised is cancelled. Answers the payment. Errors: NotFound (no payment
// of the reference), Conflict (none of them is authorised: the message names
// the newest one's status), and as Cancel.
func (s *Service) CancelByReference(ctx context.Context, in OpInput, reference string) (*Transaction, error) {
	page, err := s.st.Query(ctx, store.Query{Table: store.TablePayments, PK: payments.RefPK(in.AccountID, reference), Desc: true, Limit: maxLinkTransactions})
	if err != nil {
		return nil, apierr.Wrap("transactions.CancelByReference", apierr.Unavailable, err)
	}
	var newest *payments.Payment
	for _, it := range page.Items {
		p, err := s.repo.Get(ctx, in.AccountID, it.SK)
		if apierr.Is(err, apierr.NotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if p.Type != payments.TypePayment {
			continue
		}
		if newest == nil {
			newest = p
		}
		if p.Status == payments.Authorized {
			in.ID, in.via = p.ID, payments.ViaReference
			return s.Cancel(ctx, in)
		}
	}
	if newest == nil {
		return nil, apierr.NotFoundf("no payment with reference %s", reference)
	}
	return nil, apierr.New(payments.CodeStateConflict,
		"no payment with reference %s is authorised: the newest, %s, is %s", reference, newest.ID, newest.Status)
}

// Expire voids the authorisations whose hold lapsed (payments.AuthorizationTTL
// after authorisation): it reads the due entries of every expiry shard and
// moves each payment still authorised to cancelled (reason
// authorization_expired, event payment.cancelled), with the entry's removal,
// in one transaction conditioned on the version read. A payment that changed
// meanwhile is left to the next run; an entry whose payment left authorised
// is removed. It returns how many payments it expired.
func (s *Service) Expire(ctx context.Context) (int, error) {
	now := s.clock().UTC()
	n := 0
	var firstErr error
	for shard := 0; shard < dueindex.Shards; shard++ {
		_, err := payments.ExpiryIndex.VisitShard(ctx, s.st, shard, time.Time{}, now, expireBudget, func(e dueindex.Entry) error {
			ok, err := s.expireOne(ctx, e, now)
			if err != nil {
				s.log.Warn("authorisation expiry failed; the next run retries", "entry", e.String(), "error", err.Error())
				if firstErr == nil && !apierr.Is(err, apierr.Conflict) {
					firstErr = err
				}
			}
			if ok {
				n++
			}
			return nil
		})
		if err != nil {
			return n, err
		}
	}
	return n, firstErr
}

// expireBudget bounds the due entries one run reads per shard.
const expireBudget = 1000

func (s *Service) expireOne(ctx context.Context, e dueindex.Entry, now time.Time) (bool, error) {
	p, err := s.repo.Get(ctx, e.Account, e.ID)
	if apierr.Is(err, apierr.NotFound) || (err == nil && p.Status != payments.Authorized) {
		// SaveOps moves the entry with the status: one left by hand, by a
		// restore or in the index's earlier layout is dropped.
		return false, s.st.Write(ctx, store.Delete(e.Key, store.Always))
	}
	if err != nil {
		return false, err
	}
	if p.ExpiresAt().After(now) {
		return false, nil
	}
	if err := p.Expire(now); err != nil {
		return false, err
	}
	if err := s.repo.Save(ctx, p); err != nil {
		return false, err
	}
	return true, nil
}

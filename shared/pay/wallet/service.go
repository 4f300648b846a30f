package wallet

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/domain/phonewallet"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
)

// Defaults of Config.
const (
	// ConfirmTimeout is how long the shopper has to answer the push: a
	// transaction still NEW or PROCESSING this long after it was created is
	// FAILED with confirmation_timeout by the expirer (and the consumer).
	ConfirmTimeout = 5 * time.Minute
	// ExpireInterval is how often the expirer runs (its Schedule).
	ExpireInterval = time.Minute
)

// Config builds a Service.
type Config struct {
	Store store.Store
	Queue queue.Queue
	Clock func() time.Time // nil: time.Now
	Log   *slog.Logger     // nil: discard
	// ConfirmTimeout: 0 means the default above (tests and the crash
	// test's server shorten it).
	ConfirmTimeout time.Duration
	// Provider is the phone-wallet provider test keys' transactions go to
	// (required: the wiring chooses it).
	Provider phonewallet.Provider
	// Ledger is how captures post to the merchant's books (settlement
	// delay, fee); the zero value is the sandbox's.
	Ledger ledger.Policy
}

// Service authorises, reads and moves wallet transactions.
type Service struct {
	st       store.Store
	q        queue.Queue
	clock    func() time.Time
	log      *slog.Logger
	timeout  time.Duration
	provider phonewallet.Provider
	policy   ledger.Policy
}

// StatusNew builds the service.
func New(c Config) *Service {
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.ConfirmTimeout == 0 {
		c.ConfirmTimeout = ConfirmTimeout
	}
	if c.Provider == nil {
		panic("wallet: Config.Provider is required (the wiring chooses it)")
	}
	return &Service{st: c.Store, q: c.Queue, clock: c.Clock, log: c.Log, timeout: c.ConfirmTimeout, provider: c.Provider,
		policy: c.Ledger}
}

// AuthorizeInput is what authorising takes: typed, with no HTTP.
type AuthorizeInput struct {
	AccountID string
	TestMode  bool // a test key: the sandbox wallet answers
	Request   AuthorizeRequest
	// Idem is the keyed call; its record is written in the transaction's
	// own write. Required: one transaction per key.
	Idem *idempotency.Call
}

// Authorize validates the request and creates a NEW transaction with its
// open-index entry, its wallet.created event and the idempotency record in
// one store transaction, then asks the shopper's wallet through the
// confirmation queue. Errors: Invalid (naming the field), Conflict (key in
// flight), IdempotencyMismatch, Unavailable; a *idempotency.Replayed when the
// key already holds this request's result.
func (s *Service) Authorize(ctx context.Context, in AuthorizeInput) (*Transaction, error) {
	if !in.Idem.Keyed() {
		return nil, idempotency.ValidateKey("")
	}
	var holds func(string) error
	if in.TestMode {
		holds = s.provider.CheckCurrency
	}
	if err := in.Request.validate(holds); err != nil {
		return nil, err
	}
	if err := connectors.Choose(!in.TestMode, connectors.WalletProvider, nil); err != nil {
		return nil, err
	}
	now := s.clock().UTC()
	q := in.Request
	rec := &record{ID: ids.NewAt(now), AccountID: in.AccountID, Status: StatusNew, OrderReference: *q.OrderReference, Amount: *q.Amount,
		Currency: *q.Currency, Phone: *q.PhoneNumber, IIN: *q.IIN, Live: !in.TestMode, IdempotencyKey: in.Idem.Key(), Metadata: q.Metadata,
		CreatedAt: now, UpdatedAt: now}
	view := rec.View()
	item, err := rec.item()
	if err != nil {
		return nil, err
	}
	created, err := eventOp(EventCreated, rec, now)
	if err != nil {
		return nil, err
	}
	err = idempotency.Commit(ctx, s.st, in.Idem, idempotency.Outcome{Kind: Kind, Value: view},
		store.Put(item, store.IfAbsent), openPut(rec), created)
	if err != nil {
		if idempotency.FromKey(err) {
			return nil, err
		}
		return nil, apierr.Wrap("wallet.Authorize", apierr.Unavailable, err)
	}
	s.enqueue(ctx, rec.AccountID, rec.ID, 0)
	return &view, nil
}

// Message is the confirmation queue's message body.
type Message struct {
	AccountID string `json:"account_id"`
	ID        string `json:"wallet_transaction_id"`
}

// enqueue asks the consumer to move a transaction on. A failure is logged,
// not returned: the transaction is committed, and the expirer re-queues open
// transactions whose message was lost (and fails them after the timeout).
func (s *Service) enqueue(ctx context.Context, accountID, id string, delay time.Duration) {
	body, err := json.Marshal(Message{AccountID: accountID, ID: id})
	if err == nil {
		err = queue.SendAfterCommit(ctx, s.q, queue.WalletConfirmations, body, delay)
	}
	if err != nil {
		s.log.Warn("wallet confirmation enqueue failed; the expirer will re-queue", "wallet_transaction_id", id, "error", err.Error())
	}
}

// Get reads one transaction of the account; another account's is NotFound.
func (s *Service) Get(ctx context.Context, accountID, id string) (*Transaction, error) {
	r, err := s.load(ctx, accountID, id)
	if err != nil {
		return nil, err
	}
	t := r.View()
	return &t, nil
}

func (s *Service) load(ctx context.Context, accountID, id string) (*record, error) {
	it, err := s.st.Get(ctx, txKey(accountID, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("no such wallet transaction: %s", id)
	}
	if err != nil {
		return nil, apierr.Wrap("wallet.load", apierr.Unavailable, err)
	}
	r, err := decodeRecord(it)
	if err != nil {
		return nil, apierr.Wrap("wallet.load", apierr.Internal, err)
	}
	return r, nil
}

// errNoChange is a mutation's verdict that the transaction is already where
// the caller wanted it (a redelivered message): nothing is written.
var errNoChange = errors.New("wallet: no change")

// move is the one place a transaction changes: mutate turns the current
// record into the next (or refuses), and the change is written with its
// event, the open-index delete when it leaves NEW/PROCESSING, and a keyed
// call's record, in one store transaction conditioned on the version read
// (store.Race). Of any number of concurrent moves exactly one commits per
// version; the others read again and mutate decides anew (capture racing
// cancel: the loser finds CANCELLED or CAPTURED and is refused). changed is
// false when mutate answered errNoChange.
func (s *Service) move(ctx context.Context, cur *record, idem *idempotency.Call, mutate func(next *record) error) (_ *record, changed bool, _ error) {
	race := store.Race{Op: "wallet.move", What: "wallet transaction " + cur.ID}
	var moved *record
	err := race.Run(ctx, func(n int) error {
		if n > 0 {
			var err error
			if cur, err = s.load(ctx, cur.AccountID, cur.ID); err != nil {
				return err
			}
		}
		next := *cur
		err := mutate(&next)
		if errors.Is(err, errNoChange) {
			moved = cur
			return nil
		}
		if err == nil && !CanTransition(cur.Status, next.Status) {
			err = illegal(cur.Status, next.Status)
		}
		if err != nil {
			// A duplicate of a call that just won (same key) replays the
			// winner's answer rather than failing against its state.
			if settled := idem.Settled(ctx); settled != nil {
				return settled
			}
			return err
		}
		now := s.clock().UTC()
		next.UpdatedAt = now
		item, err := next.item()
		if err != nil {
			return err
		}
		event, err := eventOp(eventFor(next.Status), &next, now)
		if err != nil {
			return err
		}
		ops := []store.Op{store.Put(item, store.IfVersion(cur.version)), event}
		if cur.Status.Open() && !next.Status.Open() {
			ops = append(ops, openDelete(cur))
		}
		lops, err := s.ledgerOps(cur, &next, now)
		if err != nil {
			return err
		}
		ops = append(ops, lops...)
		err = idempotency.Commit(ctx, s.st, idem, idempotency.Outcome{Kind: Kind, Value: next.View()}, ops...)
		switch {
		case err == nil:
			next.version = cur.version + 1
			moved, changed = &next, true
			return nil
		case idempotency.FromKey(err):
			return err
		}
		if e := ledger.Insufficient(err, ops, "amount"); e != nil {
			return e // a refund the available balance cannot cover
		}
		return race.Settle(err)
	})
	if err != nil {
		return nil, false, err
	}
	return moved, changed, nil
}

// ledgerOps post the money a move changed to the merchant's books, in the
// move's transaction: a capture (pending, then available after the
// settlement delay) and a refund (from available).
func (s *Service) ledgerOps(cur, next *record, now time.Time) ([]store.Op, error) {
	var b ledger.Batch
	src := ledger.Source{Type: ledger.SourceWalletTransaction, ID: next.ID}
	if d := next.Captured - cur.Captured; d > 0 {
		b.Capture(s.policy, ledger.Capture{AccountID: next.AccountID, Currency: next.Currency, Livemode: next.Live,
			Source: src, Amount: d}, now)
	}
	if d := next.Refunded - cur.Refunded; d > 0 {
		b.Refund(ledger.Refund{AccountID: next.AccountID, Currency: next.Currency, Livemode: next.Live, Source: src, Amount: d}, now)
	}
	return b.Ops(now)
}

func illegal(from, to Status) error {
	return apierr.New(CodeTransactionState, "the wallet transaction is %s; it cannot become %s", from, to)
}

// OpInput is a capture, cancel or refund of one transaction.
type OpInput struct {
	AccountID string
	ID        string
	Amount    *int64 // capture and refund: nil means all that is left
	Idem      *idempotency.Call
}

func (s *Service) operate(ctx context.Context, in OpInput, mutate func(next *record) error) (*Transaction, error) {
	if !in.Idem.Keyed() {
		return nil, idempotency.ValidateKey("")
	}
	if in.Amount != nil {
		if err := checkAmount(*in.Amount); err != nil {
			return nil, err
		}
	}
	cur, err := s.load(ctx, in.AccountID, in.ID)
	if err != nil {
		return nil, err
	}
	done, _, err := s.move(ctx, cur, in.Idem, mutate)
	if err != nil {
		return nil, err
	}
	t := done.View()
	return &t, nil
}

// Capture captures a SUCCESS transaction once, in full or in part (amount at
// most the authorised amount). Errors: Invalid (amount), NotFound, Conflict
// (wallet_transaction_state: not SUCCESS), IdempotencyMismatch, Unavailable.
func (s *Service) Capture(ctx context.Context, in OpInput) (*Transaction, error) {
	return s.operate(ctx, in, func(next *record) error {
		if next.Status != StatusSuccess {
			return illegal(next.Status, StatusCaptured)
		}
		amount := next.Amount
		if in.Amount != nil {
			if *in.Amount > next.Amount {
				return apierr.New(CodeAmountExceedsAuthorized, "amount is more than the authorised amount")
			}
			amount = *in.Amount
		}
		next.Status, next.Captured = StatusCaptured, amount
		return nil
	})
}

// Cancel voids a transaction before capture: NEW, PROCESSING (the shopper's
// later answer then changes nothing) or SUCCESS (the hold is released).
// Errors: NotFound, Conflict (wallet_transaction_state), ... as Capture.
func (s *Service) Cancel(ctx context.Context, in OpInput) (*Transaction, error) {
	return s.operate(ctx, in, func(next *record) error {
		if !CanTransition(next.Status, StatusCancelled) {
			return illegal(next.Status, StatusCancelled)
		}
		next.Status = StatusCancelled
		return nil
	})
}

// Refund refunds part or all of what is left of the captured amount; partial
// refunds may repeat until it is all refunded. Errors: Invalid
// (refund_exceeds_captured, naming amount), NotFound, Conflict
// (wallet_transaction_state: not captured, or already fully refunded), ...
func (s *Service) Refund(ctx context.Context, in OpInput) (*Transaction, error) {
	return s.operate(ctx, in, func(next *record) error {
		if next.Status != StatusCaptured && next.Status != StatusPartiallyRefunded {
			return illegal(next.Status, StatusRefunded)
		}
		left := next.Captured - next.Refunded
		amount := left
		if in.Amount != nil {
			if *in.Amount > left {
				return apierr.New(CodeRefundExceedsCaptured, "amount is more than the captured amount not yet refunded")
			}
			amount = *in.Amount
		}
		next.Refunded += amount
		next.Status = StatusPartiallyRefunded
		if next.Refunded == next.Captured {
			next.Status = StatusRefunded
		}
		return nil
	})
}

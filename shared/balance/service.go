package balance

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/idempotency"
	"github.com/paygate/paygate/shared/ids"
	"github.com/paygate/paygate/shared/ledger"
	"github.com/paygate/paygate/shared/listing"
	"github.com/paygate/paygate/shared/money"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/retry"
	"github.com/paygate/paygate/shared/store"
)

// Config builds a Service.
type Config struct {
	Store     store.Store
	Queue     queue.Queue
	Processor Processor        // nil: the sandbox payout processor over Store
	Clock     func() time.Time // nil: time.Now
	Log       *slog.Logger     // nil: discard
}

// Service reads the merchant's balance and entries, and makes payouts.
type Service struct {
	st    store.Store
	q     queue.Queue
	proc  Processor
	clock func() time.Time
	log   *slog.Logger
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
		c.Processor = NewSandbox(c.Store, c.Clock)
	}
	return &Service{st: c.Store, q: c.Queue, proc: c.Processor, clock: c.Clock, log: c.Log}
}

// CurrencyBalance is the merchant's balance in one currency.
type CurrencyBalance struct {
	Currency  string    `json:"currency"`
	Available int64     `json:"available"` // settled: refunds and payouts take from it
	Pending   int64     `json:"pending"`   // captured, waiting for the settlement delay
	Reserved  int64     `json:"reserved"`  // held for payouts on their way
	Disputed  int64     `json:"disputed"`  // held for open disputes (their amounts and fees)
	Owed      int64     `json:"owed"`      // zero or negative: what disputes took beyond available, repaid from it first
	UpdatedAt time.Time `json:"updated_at"`
}

// Balances is the merchant's balance per currency (every currency it ever
// held). Errors: Unavailable, Internal.
func (s *Service) Balances(ctx context.Context, accountID string) ([]CurrencyBalance, error) {
	bs, err := ledger.Balances(ctx, s.st, accountID)
	if err != nil {
		return nil, err
	}
	var out []CurrencyBalance
	for _, b := range bs {
		if !b.Account.Merchant() {
			continue
		}
		if len(out) == 0 || out[len(out)-1].Currency != b.Currency {
			out = append(out, CurrencyBalance{Currency: b.Currency})
		}
		cb := &out[len(out)-1]
		switch b.Account {
		case ledger.Available:
			cb.Available = b.Amount
		case ledger.Pending:
			cb.Pending = b.Amount
		case ledger.Reserved:
			cb.Reserved = b.Amount
		case ledger.Disputed:
			cb.Disputed = b.Amount
		case ledger.Owed:
			cb.Owed = b.Amount
		}
		if b.UpdatedAt.After(cb.UpdatedAt) {
			cb.UpdatedAt = b.UpdatedAt
		}
	}
	return out, nil
}

// Entry is one ledger entry as the API shows it.
type Entry struct {
	ID          string           `json:"id"`
	Object      string           `json:"object"`
	Type        ledger.EntryType `json:"type"`
	Currency    string           `json:"currency"`
	Amount      int64            `json:"amount"` // the change of available + pending + reserved + disputed + owed
	Postings    []ledger.Posting `json:"postings"`
	Source      ledger.Source    `json:"source"`
	Parent      string           `json:"parent,omitempty"`
	Livemode    bool             `json:"livemode"`
	CreatedAt   time.Time        `json:"created_at"`
	AvailableOn *time.Time       `json:"available_on,omitempty"`
}

// EntryView renders a ledger entry.
func EntryView(e ledger.Entry) Entry {
	return Entry{ID: e.ID, Object: KindEntry, Type: e.Type, Currency: e.Currency, Amount: e.Net(), Postings: e.Postings,
		Source: e.Source, Parent: e.Parent, Livemode: e.Livemode, CreatedAt: e.CreatedAt, AvailableOn: e.AvailableOn}
}

// Entries pages the merchant's entries, newest first. Errors: Invalid
// (cursor), Unavailable, Internal.
func (s *Service) Entries(ctx context.Context, accountID string, f ledger.EntryFilter, p listing.Params) ([]Entry, string, error) {
	es, next, err := ledger.Entries(ctx, s.st, accountID, f, p.Limit, p.Cursor)
	if err != nil {
		return nil, "", err
	}
	out := make([]Entry, len(es))
	for i, e := range es {
		out[i] = EntryView(e)
	}
	return out, next, nil
}

// SaveCardInput is a card to save for payouts.
type SaveCardInput struct {
	AccountID string
	TestMode  bool
	Request   CardRequest
	Idem      *idempotency.Call
}

// SaveCard validates and saves a payout card: its brand, last four digits,
// expiry and holder name, and for a test key the sandbox outcome of its
// number; never the number. Errors: Invalid (naming the field), Forbidden
// (a live key: no live payout processor is wired), Unavailable;
// idempotency's.
func (s *Service) SaveCard(ctx context.Context, in SaveCardInput) (*PayoutCard, error) {
	now := s.clock().UTC()
	number, brand, err := in.Request.validate(now)
	if err != nil {
		return nil, err
	}
	if !in.TestMode {
		return nil, apierr.New(apierr.Forbidden, "live_payouts_unavailable",
			"no live payout processor is configured: payout cards can be saved with test keys only")
	}
	c := &card{PayoutCard: PayoutCard{ID: ids.NewAt(now), Brand: brand, Last4: number[len(number)-4:],
		ExpiryMonth: int(*in.Request.ExpiryMonth), ExpiryYear: int(*in.Request.ExpiryYear),
		HolderName: strings.TrimSpace(*in.Request.HolderName), Metadata: in.Request.Metadata, CreatedAt: now},
		AccountID: in.AccountID, Outcome: SandboxOutcome(number)}
	view := c.View()
	err = idempotency.Commit(ctx, s.st, in.Idem, idempotency.Outcome{Created: true, Kind: KindCard, Value: view},
		store.Put(c.item(), store.IfAbsent))
	if err != nil {
		if idempotency.FromKey(err) {
			return nil, err
		}
		return nil, apierr.Wrap("balance.SaveCard", apierr.Unavailable, err)
	}
	return &view, nil
}

func (s *Service) card(ctx context.Context, accountID, id string) (*card, error) {
	it, err := s.st.Get(ctx, cardKey(accountID, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("no such payout card: %s", id)
	}
	if err != nil {
		return nil, apierr.Wrap("balance.card", apierr.Unavailable, err)
	}
	return decodeCard(it)
}

// Card reads one of the account's payout cards; another account's is
// NotFound.
func (s *Service) Card(ctx context.Context, accountID, id string) (*PayoutCard, error) {
	c, err := s.card(ctx, accountID, id)
	if err != nil {
		return nil, err
	}
	v := c.View()
	return &v, nil
}

// Cards pages the account's payout cards, newest first.
func (s *Service) Cards(ctx context.Context, accountID string, p listing.Params) ([]PayoutCard, string, error) {
	q := store.Query{Table: store.TableLedger, PK: cardPK(accountID), Desc: true, Cursor: p.Cursor, Limit: p.Limit + 1}
	return listing.Collect(ctx, s.st, q, p.Limit, listing.DefaultBudget, func(it store.Item) (PayoutCard, bool, error) {
		c, err := decodeCard(it)
		if err != nil {
			return PayoutCard{}, false, err
		}
		return c.View(), true, nil
	})
}

// Deleted is the answer of a delete.
type Deleted struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Deleted bool   `json:"deleted"`
}

// DeleteCard deletes a payout card; payouts already made to it are not
// affected (each holds what it needs). Errors: NotFound, Unavailable.
func (s *Service) DeleteCard(ctx context.Context, accountID, id string) (*Deleted, error) {
	err := s.st.Write(ctx, store.Delete(cardKey(accountID, id), store.IfExists))
	if _, ok := store.IsConditionFailed(err); ok {
		return nil, apierr.NotFoundf("no such payout card: %s", id)
	}
	if err != nil {
		return nil, apierr.Wrap("balance.DeleteCard", apierr.Unavailable, err)
	}
	return &Deleted{ID: id, Object: KindCard, Deleted: true}, nil
}

// AmountInput is an amount in a request: pointers tell absent from zero.
type AmountInput struct {
	Value    *int64  `json:"value"`
	Currency *string `json:"currency" maxlen:"3"`
}

// PayoutRequest is the body of POST /v1/payouts.
type PayoutRequest struct {
	Amount       *AmountInput      `json:"amount"`
	PayoutCardID *string           `json:"payout_card_id" maxlen:"36"`
	Reference    *string           `json:"reference" maxlen:"128"`
	Metadata     map[string]string `json:"metadata" maxlen:"500" maxkey:"40"`
}

// MaxReference is the longest payout reference.
const MaxReference = 128

func (in *PayoutRequest) validate() error {
	if in.Amount == nil {
		return apierr.Missing("amount")
	}
	if in.Amount.Value == nil {
		return apierr.Missing("amount.value")
	}
	if v := *in.Amount.Value; v < 1 || v > money.MaxMinor {
		return apierr.Invalidf("amount.value", "amount.value must be an integer from 1 to %d minor units", money.MaxMinor)
	}
	if in.Amount.Currency == nil {
		return apierr.Missing("amount.currency")
	}
	if _, err := money.ParseCurrencyField("amount.currency", *in.Amount.Currency); err != nil {
		return err
	}
	if in.PayoutCardID == nil {
		return apierr.Missing("payout_card_id")
	}
	if _, err := ids.ParseField("payout_card_id", *in.PayoutCardID); err != nil {
		return err
	}
	if in.Reference == nil {
		return apierr.Missing("reference")
	}
	if n := utf8.RuneCountInString(*in.Reference); n < 1 || n > MaxReference {
		return apierr.Invalidf("reference", "reference must be 1 to %d characters", MaxReference)
	}
	return checkMetadata(in.Metadata)
}

// PayoutInput is a payout to make.
type PayoutInput struct {
	AccountID string
	Request   PayoutRequest
	Idem      *idempotency.Call // required
}

// CreatePayout reserves the amount from the available balance and queues
// the payout for the processor: the payout (pending), its open-index entry,
// the reservation entry and balances, its payout.created event and the
// Idempotency-Key's record in one transaction; then the queue message.
// The account must owe nothing in the currency from disputes (a debt is
// repaid from available first: ledger.DebtFree). Errors: Invalid (naming
// the field), NotFound (payout_card_id: missing or another account's),
// InsufficientFunds (available below the amount, or a debt open: nothing
// reserved or stored), Unavailable; idempotency's.
func (s *Service) CreatePayout(ctx context.Context, in PayoutInput) (*Payout, error) {
	if !in.Idem.Keyed() {
		return nil, idempotency.ValidateKey("")
	}
	r := in.Request
	if err := r.validate(); err != nil {
		return nil, err
	}
	c, err := s.card(ctx, in.AccountID, *r.PayoutCardID)
	if err != nil {
		if apierr.Is(err, apierr.NotFound) {
			e := apierr.NotFoundf("no such payout card: %s", *r.PayoutCardID)
			e.Param = "payout_card_id"
			return nil, e
		}
		return nil, err
	}
	now := s.clock().UTC()
	p := &payout{Payout: Payout{ID: ids.NewAt(now), Amount: Amount{Value: *r.Amount.Value, Currency: *r.Amount.Currency},
		PayoutCardID: c.ID, Card: CardSummary{Brand: c.Brand, Last4: c.Last4}, Reference: *r.Reference, Status: PayoutPending,
		Livemode: c.Livemode, Metadata: r.Metadata, CreatedAt: now, UpdatedAt: now},
		AccountID: in.AccountID, Outcome: c.Outcome}
	view := p.View()
	// A debt from disputes is repaid before anything is paid out: the write
	// holds owed to what was read (ledger.DebtFree).
	var ops []store.Op
	err = ledger.WhileDebtFree(ctx, s.st, in.AccountID, p.Amount.Currency, func(f ledger.Funds) ([]store.Op, error) {
		var b ledger.Batch
		b.Reserve(p.move(), now)
		if err := b.DebtFree(in.AccountID, p.Amount.Currency, f, "amount.value"); err != nil {
			return nil, err
		}
		if ops, err = s.changeOps(p, nil, EventPayoutCreated, &b, now); err != nil {
			return nil, err
		}
		return ops, idempotency.Commit(ctx, s.st, in.Idem, idempotency.Outcome{Created: true, Kind: KindPayout, Value: view}, ops...)
	})
	if err != nil {
		// Kinded errors (the debt, a read, the key) are answered as they
		// are; the write's own are worded here.
		var kinded *apierr.Error
		if idempotency.FromKey(err) || errors.As(err, &kinded) {
			return nil, err
		}
		if e := ledger.Insufficient(err, ops, "amount.value"); e != nil {
			return nil, e
		}
		if ledger.IsOutOfRange(err) {
			return nil, apierr.Invalidf("amount.value", "this payout would take the reserved balance past its maximum")
		}
		return nil, apierr.Wrap("balance.CreatePayout", apierr.Unavailable, err)
	}
	s.enqueue(ctx, p.AccountID, p.ID)
	return &view, nil
}

func (p *payout) move() ledger.PayoutMove {
	return ledger.PayoutMove{AccountID: p.AccountID, Currency: p.Amount.Currency, Livemode: p.Livemode, PayoutID: p.ID, Amount: p.Amount.Value}
}

// changeOps are the writes of a payout's change: the record (new, or
// conditioned on the version read), the open index entry (put when new,
// removed once decided), the event, and the ledger batch.
func (s *Service) changeOps(p *payout, was *PayoutStatus, eventType string, b *ledger.Batch, now time.Time) ([]store.Op, error) {
	it, err := p.item()
	if err != nil {
		return nil, apierr.Wrap("balance.changeOps", apierr.Internal, err)
	}
	var ops []store.Op
	if was == nil {
		ops = append(ops, store.Put(it, store.IfAbsent), store.Put(openItem(p), store.IfAbsent))
	} else {
		ops = append(ops, store.Put(it, store.IfVersion(p.version)))
		if *was == PayoutPending && p.Status != PayoutPending {
			ops = append(ops, store.Delete(openKey(p), store.Always))
		}
	}
	if eventType != "" {
		ev := Event{ID: ids.Prefixed("evt"), Type: eventType, Created: now.Unix(), Account: p.AccountID, Livemode: p.Livemode, Data: p.View()}
		data, err := json.Marshal(ev)
		if err != nil {
			return nil, apierr.Wrap("balance.changeOps", apierr.Internal, err)
		}
		ops = append(ops, store.Put(store.Item{Key: eventKey(p.AccountID, ev.ID), Data: data, ExpiresAt: now.Add(EventRetention)}, store.IfAbsent))
	}
	lops, err := b.Ops(now)
	if err != nil {
		return nil, err
	}
	return append(ops, lops...), nil
}

// Message is the payouts queue's message body.
type Message struct {
	AccountID string `json:"account_id"`
	PayoutID  string `json:"payout_id"`
}

// enqueue hands a payout to the consumer. A failure is logged: the payout
// is committed, and the settlement task re-queues payouts left pending.
func (s *Service) enqueue(ctx context.Context, accountID, id string) {
	body, _ := json.Marshal(Message{AccountID: accountID, PayoutID: id})
	if _, err := s.q.Send(context.WithoutCancel(ctx), queue.Payouts, body, 0); err != nil {
		s.log.Warn("payout enqueue failed; the settlement task will re-queue it", "payout_id", id, "error", err.Error())
	}
}

func (s *Service) load(ctx context.Context, accountID, id string) (*payout, error) {
	it, err := s.st.Get(ctx, payoutKey(accountID, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("no such payout: %s", id)
	}
	if err != nil {
		return nil, apierr.Wrap("balance.load", apierr.Unavailable, err)
	}
	p, err := decodePayout(it)
	if err != nil {
		return nil, apierr.Wrap("balance.load", apierr.Internal, err)
	}
	return p, nil
}

// Payout reads one of the account's payouts; another account's is NotFound.
func (s *Service) Payout(ctx context.Context, accountID, id string) (*Payout, error) {
	p, err := s.load(ctx, accountID, id)
	if err != nil {
		return nil, err
	}
	v := p.View()
	return &v, nil
}

// PayoutFilter narrows a payout list; zero fields match everything.
type PayoutFilter struct {
	Status   PayoutStatus
	From, To time.Time
}

// Payouts pages the account's payouts newest first: one partition, the
// created range as a key range, the status applied while paging.
func (s *Service) Payouts(ctx context.Context, accountID string, f PayoutFilter, p listing.Params) ([]Payout, string, error) {
	q := store.Query{Table: store.TableLedger, PK: payoutPK(accountID), Desc: true, Cursor: p.Cursor}
	if f.Status == "" {
		q.Limit = p.Limit + 1
	}
	if !f.From.IsZero() {
		q.From = ids.Bound(f.From, false)
	}
	if !f.To.IsZero() {
		q.To = ids.Bound(f.To, true)
	}
	return listing.Collect(ctx, s.st, q, p.Limit, listing.DefaultBudget, func(it store.Item) (Payout, bool, error) {
		po, err := decodePayout(it)
		if err != nil {
			return Payout{}, false, apierr.Wrap("balance.Payouts", apierr.Internal, err)
		}
		ok := (f.Status == "" || po.Status == f.Status) && (f.From.IsZero() || !po.CreatedAt.Before(f.From)) &&
			(f.To.IsZero() || !po.CreatedAt.After(f.To))
		return po.View(), ok, nil
	})
}

// decideAttempts bounds the re-reads when a payout changes under the
// consumer (another delivery of its message deciding it first).
const decideAttempts = 8

var raceBackoff = retry.Backoff{Base: 2 * time.Millisecond, Max: 64 * time.Millisecond, Jitter: retry.Full, Floor: time.Millisecond}

// decide records the processor's final answer: the payout becomes paid
// (reserved -> paid_out) or failed (reserved -> available), with its event
// and the open entry's removal, in one transaction conditioned on the
// version read. A payout already decided is left as it is (a second
// delivery of its message): one payout, one entry.
func (s *Service) decide(ctx context.Context, p *payout, res PayResult) error {
	for attempt := 0; ; attempt++ {
		if p.Status != PayoutPending {
			return nil
		}
		now := s.clock().UTC()
		was := p.Status
		next := *p
		var b ledger.Batch
		event := EventPayoutPaid
		if res.Paid {
			next.Status, next.PaidAt = PayoutPaid, &now
			b.PaidOut(p.move(), now)
		} else {
			next.Status, next.FailedAt, next.FailureReason = PayoutFailed, &now, res.Reason
			b.Release(p.move(), now)
			event = EventPayoutFailed
		}
		if !was.CanTransition(next.Status) {
			return apierr.New(apierr.Conflict, "payout_state_conflict", "payout %s is %s", p.ID, p.Status)
		}
		next.UpdatedAt = now
		ops, err := s.changeOps(&next, &was, event, &b, now)
		if err != nil {
			return err
		}
		err = s.st.Write(ctx, ops...)
		if err == nil {
			return nil
		}
		if cf, ok := store.IsConditionFailed(err); !ok || cf.Index != 0 {
			return apierr.Wrap("balance.decide", apierr.Unavailable, err)
		}
		if attempt+1 == decideAttempts {
			return apierr.New(apierr.Conflict, "payout_busy", "payout %s kept changing", p.ID)
		}
		if err := raceBackoff.Sleep(ctx, attempt); err != nil {
			return err
		}
		if p, err = s.load(ctx, p.AccountID, p.ID); err != nil {
			return err
		}
	}
}

// MaxPayAttempts is how many processor calls may go unanswered before the
// consumer asks the processor what became of the payout (Lookup) and
// decides it: paid if the processor paid it, else failed
// (processor_timeout), the reservation released.
const MaxPayAttempts = 3

// Process pays one pending payout through the processor and records its
// answer. A payout already decided is left as it is. It returns again > 0
// when the processor did not answer and the payout should be tried again
// after that long. Errors: NotFound (no such payout), Unavailable.
func (s *Service) Process(ctx context.Context, accountID, id string) (again time.Duration, err error) {
	p, err := s.load(ctx, accountID, id)
	if err != nil || p.Status != PayoutPending {
		return 0, err
	}
	res, err := s.proc.Pay(ctx, PayRequest{PayoutID: p.ID, Amount: p.Amount.Value, Currency: p.Amount.Currency,
		Livemode: p.Livemode, Outcome: p.Outcome})
	if err == nil {
		return 0, s.decide(ctx, p, res)
	}
	if !errors.Is(err, ErrNoAnswer) {
		return 0, err
	}
	p.Attempts++
	if p.Attempts >= MaxPayAttempts {
		res, found, err := s.proc.Lookup(ctx, p.ID)
		if err != nil {
			return retryAfterNoAnswer, nil
		}
		if !found {
			res = PayResult{Reason: ReasonProcessorTimeout}
		}
		return 0, s.decide(ctx, p, res)
	}
	// Count the unanswered call, so a crash cannot reset the count.
	it, err := p.item()
	if err != nil {
		return 0, apierr.Wrap("balance.Process", apierr.Internal, err)
	}
	if err := s.st.Write(ctx, store.Put(it, store.IfVersion(p.version))); err != nil {
		if _, ok := store.IsConditionFailed(err); ok {
			return 0, nil // decided or counted by another delivery meanwhile
		}
		return 0, apierr.Wrap("balance.Process", apierr.Unavailable, err)
	}
	return retryAfterNoAnswer * time.Duration(p.Attempts), nil
}

// retryAfterNoAnswer is how long a payout whose processor call got no
// answer waits before the next call (times the calls so far).
const retryAfterNoAnswer = 5 * time.Second

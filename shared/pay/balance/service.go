package balance

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/domain/metadata"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/domain/remittance"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/platform/listing"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
)

// Config builds a Service.
type Config struct {
	Store     store.Store
	Queue     queue.Queue
	Processor Processor        // required: the payout processor (the wiring chooses it)
	Clock     func() time.Time // nil: time.Now
	Log       *slog.Logger     // nil: discard
}

// Service reads the merchant's balance and entries, and makes payouts.
type Service struct {
	st    store.Store
	proc  Processor
	clock func() time.Time
	flow  *remittance.Flow[*payout] // the payouts' open index, queue, consumer and decision
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
		panic("balance: Config.Processor is required (the wiring chooses it)")
	}
	s := &Service{st: c.Store, proc: c.Processor, clock: c.Clock}
	s.flow = &remittance.Flow[*payout]{Op: "balance", What: "payout", Store: c.Store, Queue: c.Queue,
		QueueName: queue.Payouts, IDField: "payout_id", Log: c.Log, Clock: c.Clock, OpenIndex: openIndex,
		Load: s.load, Ask: s.ask, Lookup: c.Processor.Lookup, TimeoutReason: ReasonProcessorTimeout, Sending: sending}
	return s
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
	if err := connectors.Choose(!in.TestMode, connectors.PayoutProcessor, nil); err != nil {
		return nil, err
	}
	c := &card{PayoutCard: PayoutCard{ID: ids.NewAt(now), Brand: brand, Last4: number[len(number)-4:],
		ExpiryMonth: int(*in.Request.ExpiryMonth), ExpiryYear: int(*in.Request.ExpiryYear),
		HolderName: strings.TrimSpace(*in.Request.HolderName), Metadata: in.Request.Metadata, CreatedAt: now},
		AccountID: in.AccountID, Outcome: s.proc.Enrol(number)}
	view := c.View()
	it, err := c.item()
	if err != nil {
		return nil, apierr.Wrap("balance.SaveCard", apierr.Internal, err)
	}
	err = idempotency.Commit(ctx, s.st, in.Idem, idempotency.Outcome{Created: true, Kind: KindCard, Value: view},
		store.Put(it, store.IfAbsent))
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

// AmountInput is an amount in a request: pointers tell absent from zero
// (amount.value missing is not amount.value 0), which money.Amount cannot.
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
	return metadata.Check(in.Metadata)
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
	p := &payout{Payout: Payout{ID: ids.NewAt(now), Amount: money.Amount{Value: *r.Amount.Value, Currency: *r.Amount.Currency},
		PayoutCardID: c.ID, Card: CardSummary{Brand: c.Brand, Last4: c.Last4}, Reference: *r.Reference,
		State: remittance.State[PayoutStatus]{Status: PayoutPending, Livemode: c.Livemode, Metadata: r.Metadata, CreatedAt: now, UpdatedAt: now}},
		Kept: remittance.Kept{AccountID: in.AccountID}, Outcome: c.Outcome}
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
		if ops, err = s.flow.Ops(remittance.Change{Record: p, Event: p.event(EventPayoutCreated, now), Batch: &b}, now); err != nil {
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
	s.flow.Enqueue(ctx, p.AccountID, p.ID)
	return &view, nil
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

// CancelInput names a payout to cancel.
type CancelInput struct {
	AccountID string
	ID        string
	Idem      *idempotency.Call // required on the API; the dashboard's form key
}

// CancelPayout cancels a pending payout, one the consumer has not handed to
// the processor yet: the payout (cancelled, conditioned on the version
// read), its open entry's removal, the release of its reservation
// (reserved -> available, payout_cancelled), its payout.cancelled event and
// the key's record, in one transaction. The consumer's write that sends the
// payout is conditioned on the same version, so of a cancel and a send at
// the same moment exactly one commits: the loser reads again (store.Race)
// and finds the payout cancelled (the processor is never asked) or in
// transit (409). Errors: NotFound (missing or another account's), Conflict
// (payout_not_pending, naming the status; resource_busy), Unavailable;
// idempotency's.
func (s *Service) CancelPayout(ctx context.Context, in CancelInput) (*Payout, error) {
	var out *Payout
	race := store.Race{Op: "balance.CancelPayout", What: "payout " + in.ID}
	err := race.Run(ctx, func(int) error {
		p, err := s.load(ctx, in.AccountID, in.ID)
		if err != nil {
			return err
		}
		if !p.Cancellable() {
			if serr := in.Idem.Settled(ctx); serr != nil {
				return serr // a concurrent duplicate of this call won: replay it
			}
			return notPending(p)
		}
		now := s.clock().UTC()
		c, err := p.cancellation(now)
		if err != nil {
			return apierr.Wrap("balance.CancelPayout", apierr.Internal, err)
		}
		ops, err := s.flow.Ops(c, now)
		if err != nil {
			return err
		}
		view := c.Record.(*payout).View()
		err = idempotency.Commit(ctx, s.st, in.Idem, idempotency.Outcome{Kind: KindPayout, Value: view}, ops...)
		switch {
		case err == nil:
			out = &view
			return nil
		case idempotency.FromKey(err):
			return err
		}
		return race.Settle(err)
	})
	return out, err
}

// notPending is the 409 of a payout that can no longer be cancelled.
func notPending(p *payout) error {
	status := p.Status
	if status == PayoutPending {
		status = PayoutInTransit // sent before in_transit existed (Cancellable)
	}
	if status == PayoutInTransit {
		return apierr.New(CodeNotPending, "payout %s is %s: it was sent to the payout processor and can no longer be cancelled", p.ID, status)
	}
	return apierr.New(CodeNotPending, "payout %s is %s: only a pending payout can be cancelled", p.ID, status)
}

// MaxPayAttempts is how many processor calls may go unanswered before the
// consumer asks the processor what became of the payout (Lookup) and
// decides it: paid if the processor paid it, else failed
// (processor_timeout), the reservation released.
const MaxPayAttempts = remittance.MaxAttempts

// ask asks the processor to pay p.
func (s *Service) ask(ctx context.Context, p *payout) (PayResult, error) {
	return s.proc.Pay(ctx, PayRequest{PayoutID: p.ID, Amount: p.Amount.Value, Currency: p.Amount.Currency,
		Livemode: p.Livemode, Card: p.Outcome})
}

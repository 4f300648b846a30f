package beneficiaries

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"time"
	"unicode/utf8"

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
	Store store.Store
	Queue queue.Queue
	Bank  Bank             // required: the bank (the wiring chooses it)
	Clock func() time.Time // nil: time.Now
	Log   *slog.Logger     // nil: discard
}

// Service keeps the merchant's beneficiaries, their transfers back to the
// merchant, settlement payment orders and distributions.
type Service struct {
	st    store.Store
	bank  Bank
	clock func() time.Time
	log   *slog.Logger
	flow  *remittance.Flow[*order] // the payment orders' open index, queue, consumer and decision
}

// New builds the service.
func New(c Config) *Service {
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Bank == nil {
		panic("beneficiaries: Config.Bank is required (the wiring chooses it)")
	}
	s := &Service{st: c.Store, bank: c.Bank, clock: c.Clock, log: c.Log}
	s.flow = &remittance.Flow[*order]{Op: "beneficiaries", What: "payment order", Store: c.Store, Queue: c.Queue,
		QueueName: queue.PaymentOrders, IDField: "payment_order_id", Log: c.Log, Clock: c.Clock, OpenIndex: orderOpen,
		Load: s.loadOrder, Ask: s.ask, Lookup: c.Bank.Lookup, TimeoutReason: ReasonBankTimeout}
	return s
}

// CreateInput is a beneficiary to register.
type CreateInput struct {
	AccountID string
	Livemode  bool
	Request   CreateRequest
	Idem      *idempotency.Call
}

// Create registers a beneficiary (active). Errors: Invalid (naming the
// field: an identifier, IBAN, BIC or KBe breaking its rule, a KBe that
// contradicts the type), Unavailable; idempotency's.
func (s *Service) Create(ctx context.Context, in CreateInput) (*Beneficiary, error) {
	b, err := in.Request.validate()
	if err != nil {
		return nil, err
	}
	now := s.clock().UTC()
	b.ID, b.Livemode, b.CreatedAt, b.UpdatedAt = ids.NewAt(now), in.Livemode, now, now
	rec := &record{Beneficiary: *b, AccountID: in.AccountID}
	it, err := rec.item()
	if err != nil {
		return nil, apierr.Wrap("beneficiaries.Create", apierr.Internal, err)
	}
	view := rec.view()
	err = idempotency.Commit(ctx, s.st, in.Idem, idempotency.Outcome{Created: true, Kind: KindBeneficiary, Value: view},
		store.Put(it, store.IfAbsent))
	if err != nil {
		if idempotency.FromKey(err) {
			return nil, err
		}
		return nil, apierr.Wrap("beneficiaries.Create", apierr.Unavailable, err)
	}
	return &view, nil
}

func notFound(id string) *apierr.Error { return apierr.NotFoundf("no such beneficiary: %s", id) }

func (s *Service) load(ctx context.Context, accountID, id string) (*record, error) {
	it, err := s.st.Get(ctx, beneficiaryKey(accountID, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound(id)
	}
	if err != nil {
		return nil, apierr.Wrap("beneficiaries.load", apierr.Unavailable, err)
	}
	return decodeBeneficiary(it)
}

// Get reads one of the account's beneficiaries with its balances (one
// partition of the books); another account's is NotFound. Errors:
// NotFound, Unavailable, Internal.
func (s *Service) Get(ctx context.Context, accountID, id string) (*Beneficiary, error) {
	b, err := s.load(ctx, accountID, id)
	if err != nil {
		return nil, err
	}
	bs, err := ledger.BeneficiaryBalances(ctx, s.st, accountID, id)
	if err != nil {
		return nil, err
	}
	v := b.view()
	rows := []Balance{}
	for _, x := range bs {
		if len(rows) == 0 || rows[len(rows)-1].Currency != x.Currency {
			rows = append(rows, Balance{Currency: x.Currency})
		}
		row := &rows[len(rows)-1]
		if _, reserved, _ := x.Account.BeneficiaryID(); reserved {
			row.Reserved = x.Amount
		} else {
			row.Available = x.Amount
		}
	}
	v.Balances = &rows
	return &v, nil
}

// Filter narrows a list; zero fields match everything.
type Filter struct {
	Status   string
	From, To time.Time
}

// List pages the account's beneficiaries newest first (without balances):
// one partition, the created range as a key range, the status applied while
// paging. Errors: Invalid (cursor), Unavailable, Internal.
func (s *Service) List(ctx context.Context, accountID string, f Filter, p listing.Params) ([]Beneficiary, string, error) {
	q := listQuery(beneficiaryPK(accountID), f.Status == "", f.From, f.To, p)
	return listing.Collect(ctx, s.st, q, p.Limit, listing.DefaultBudget, func(it store.Item) (Beneficiary, bool, error) {
		b, err := decodeBeneficiary(it)
		if err != nil {
			return Beneficiary{}, false, err
		}
		ok := (f.Status == "" || string(b.Status) == f.Status) && inRange(b.CreatedAt, f.From, f.To)
		return b.view(), ok, nil
	})
}

// listQuery is a newest-first query of one partition of UUIDv7 ids, the
// created range as a key range; unfiltered lists read limit+1.
func listQuery(pk string, unfiltered bool, from, to time.Time, p listing.Params) store.Query {
	q := store.Query{Table: store.TableLedger, PK: pk, Desc: true, Cursor: p.Cursor}
	if unfiltered {
		q.Limit = p.Limit + 1
	}
	if !from.IsZero() {
		q.From = ids.Bound(from, false)
	}
	if !to.IsZero() {
		q.To = ids.Bound(to, true)
	}
	return q
}

func inRange(t, from, to time.Time) bool {
	return (from.IsZero() || !t.Before(from)) && (to.IsZero() || !t.After(to))
}

// UpdateInput is a change of a beneficiary.
type UpdateInput struct {
	AccountID string
	ID        string
	Request   UpdateRequest
	Idem      *idempotency.Call
}

// Update changes a beneficiary's name, bank details, KBe, e-mail, status or
// metadata (the type and IIN or BIN stay), conditioned on the version read
// (a store.Race: a lost race reads again). Errors: Invalid (naming the
// field), NotFound, Conflict (beneficiary_state_conflict; resource_busy: a
// change that kept racing), Unavailable; idempotency's.
func (s *Service) Update(ctx context.Context, in UpdateInput) (*Beneficiary, error) {
	race := store.Race{Op: "beneficiaries.Update", What: "beneficiary " + in.ID}
	var view Beneficiary
	err := race.Run(ctx, func(int) error {
		b, err := s.load(ctx, in.AccountID, in.ID)
		if err != nil {
			return err
		}
		next := *b
		next.Metadata = b.Metadata
		if err := in.Request.apply(&next.Beneficiary); err != nil {
			return err
		}
		next.UpdatedAt = s.clock().UTC()
		it, err := next.item()
		if err != nil {
			return apierr.Wrap("beneficiaries.Update", apierr.Internal, err)
		}
		view = next.view()
		err = idempotency.Commit(ctx, s.st, in.Idem, idempotency.Outcome{Kind: KindBeneficiary, Value: view},
			store.Put(it, store.IfVersion(b.version)))
		if idempotency.FromKey(err) {
			return err
		}
		return race.Settle(err)
	})
	if err != nil {
		return nil, err
	}
	return &view, nil
}

// AmountRequest is an amount in a request: pointers tell absent from zero
// (amount.value missing is not amount.value 0), which money.Amount cannot.
type AmountRequest struct {
	Value    *int64  `json:"value"`
	Currency *string `json:"currency" maxlen:"3"`
}

// check validates an amount named param (amount, lines[3].amount).
func (a *AmountRequest) check(param string) (money.Amount, error) {
	if a == nil {
		return money.Amount{}, apierr.Missing(param)
	}
	if a.Value == nil {
		return money.Amount{}, apierr.Missing(param + ".value")
	}
	if v := *a.Value; v < 1 || v > money.MaxMinor {
		return money.Amount{}, apierr.Invalidf(param+".value", "%s.value must be an integer from 1 to %d minor units", param, money.MaxMinor)
	}
	if a.Currency == nil {
		return money.Amount{}, apierr.Missing(param + ".currency")
	}
	if _, err := money.ParseCurrencyField(param+".currency", *a.Currency); err != nil {
		return money.Amount{}, err
	}
	return money.Amount{Value: *a.Value, Currency: *a.Currency}, nil
}

// MaxDescription is the longest description of a transfer or payment order
// (a Kazakh payment order's purpose text).
const MaxDescription = 250

func checkDescription(param string, s *string, required bool) (string, error) {
	if s == nil {
		if required {
			return "", apierr.Missing(param)
		}
		return "", nil
	}
	if n := utf8.RuneCountInString(*s); n < 1 || n > MaxDescription {
		return "", apierr.Invalidf(param, "%s must be 1 to %d characters", param, MaxDescription)
	}
	return *s, nil
}

// TransferRequest is the body of POST /v1/merchants/beneficiaries/{id}/transfer.
type TransferRequest struct {
	Amount      *AmountRequest    `json:"amount"`
	Description *string           `json:"description" maxlen:"250"`
	Metadata    map[string]string `json:"metadata" maxlen:"500" maxkey:"40"`
}

// Transfer is a move of a beneficiary's balance to the merchant's
// available balance.
type Transfer struct {
	ID            string            `json:"id"`
	Object        string            `json:"object"`
	BeneficiaryID string            `json:"beneficiary_id"`
	Amount        money.Amount      `json:"amount"`
	Description   string            `json:"description,omitempty"`
	EntryID       string            `json:"balance_entry_id"`
	Livemode      bool              `json:"livemode"`
	Metadata      map[string]string `json:"metadata"`
	CreatedAt     time.Time         `json:"created_at"`
}

// TransferInput is a transfer to make.
type TransferInput struct {
	AccountID     string
	BeneficiaryID string
	Request       TransferRequest
	Idem          *idempotency.Call // required
}

// Transfer moves an amount of the beneficiary's balance to the merchant's
// available balance: one entry (beneficiary:<id> -> available) and its
// balances, with the Idempotency-Key's record, in one transaction. A
// disabled beneficiary's balance can be transferred too. Errors: Invalid
// (naming the field), NotFound (the beneficiary: missing or another
// account's), InsufficientFunds (it holds less: nothing moved), Unavailable;
// idempotency's.
func (s *Service) Transfer(ctx context.Context, in TransferInput) (*Transfer, error) {
	if !in.Idem.Keyed() {
		return nil, idempotency.ValidateKey("")
	}
	r := in.Request
	amt, err := r.Amount.check("amount")
	if err != nil {
		return nil, err
	}
	desc, err := checkDescription("description", r.Description, false)
	if err != nil {
		return nil, err
	}
	if err := metadata.Check(r.Metadata); err != nil {
		return nil, err
	}
	b, err := s.load(ctx, in.AccountID, in.BeneficiaryID)
	if err != nil {
		return nil, err
	}
	now := s.clock().UTC()
	t := Transfer{ID: ids.NewAt(now), Object: KindTransfer, BeneficiaryID: b.ID, Amount: amt, Description: desc,
		Livemode: b.Livemode, Metadata: r.Metadata, CreatedAt: now}
	if t.Metadata == nil {
		t.Metadata = map[string]string{}
	}
	var batch ledger.Batch
	batch.TransferToMerchant(ledger.BeneficiaryMove{AccountID: in.AccountID, Currency: amt.Currency, Livemode: b.Livemode,
		BeneficiaryID: b.ID, Source: ledger.Source{Type: ledger.SourceTransfer, ID: t.ID}, Amount: amt.Value}, now)
	t.EntryID = batch.Entries[0].ID
	ops, err := batch.Ops(now)
	if err != nil {
		return nil, err
	}
	err = idempotency.Commit(ctx, s.st, in.Idem, idempotency.Outcome{Created: true, Kind: KindTransfer, Value: t}, ops...)
	if err != nil {
		return nil, moneyErr("beneficiaries.Transfer", err, ops, "amount.value")
	}
	return &t, nil
}

// moneyErr maps a failed money-moving commit: the key's verdict as it is,
// a balance that would go below zero as insufficient_balance naming param,
// one that would pass its maximum as a 400, anything else Unavailable.
func moneyErr(op string, err error, ops []store.Op, param string) error {
	if idempotency.FromKey(err) {
		return err
	}
	if e := ledger.Insufficient(err, ops, param); e != nil {
		return e
	}
	if ledger.IsOutOfRange(err) {
		return apierr.Invalidf(param, "this would take a balance past its maximum")
	}
	return apierr.Wrap(op, apierr.Unavailable, err)
}

// validStatus reports whether s is one of the list filter's values.
func validStatus[T ~string](s string, all []T) bool { return slices.Contains(all, T(s)) }

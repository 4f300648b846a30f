package beneficiaries

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/kzid"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/domain/metadata"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/domain/remittance"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/platform/listing"
	"github.com/paygate/paygate/shared/store"
)

// OrderStatus is a settlement payment order's state.
type OrderStatus string

const (
	OrderCreated OrderStatus = "created" // the amount is reserved; the bank has not paid it yet
	OrderPaid    OrderStatus = "paid"    // the bank paid it to the beneficiary's account
	OrderFailed  OrderStatus = "failed"  // the bank refused it (failure_reason); the reservation went back to the beneficiary
)

// OrderStatuses lists every status.
var OrderStatuses = []OrderStatus{OrderCreated, OrderPaid, OrderFailed}

// orderTransitions is the state machine: an order is decided once.
var orderTransitions = map[OrderStatus][]OrderStatus{OrderCreated: {OrderPaid, OrderFailed}}

// CanTransition reports whether from -> to is allowed.
func (from OrderStatus) CanTransition(to OrderStatus) bool {
	return slices.Contains(orderTransitions[from], to)
}

// Event types of payment orders and distributions (eventlog.Catalogue
// lists them).
const (
	EventOrderCreated = "payment_order.created"
	EventOrderPaid    = "payment_order.paid"
	EventOrderFailed  = "payment_order.failed"
	// EventDistributionCompleted: every line of a distribution is credited.
	EventDistributionCompleted = "distribution.completed"
)

// EventTypes are every type this package writes.
var EventTypes = []string{EventOrderCreated, EventOrderPaid, EventOrderFailed, EventDistributionCompleted}

// BankAccount is the account a payment order pays, as the beneficiary had
// it when the order was made.
type BankAccount struct {
	Name string `json:"name"`
	IBAN string `json:"iban"`
	BIC  string `json:"bic"`
	KBe  string `json:"kbe"`
	IIN  string `json:"iin,omitempty"`
	BIN  string `json:"bin,omitempty"`
}

// PaymentOrder is a settlement payment order as the API (and its events)
// show it.
type PaymentOrder struct {
	ID            string       `json:"id"`
	Object        string       `json:"object"`
	MerchantID    string       `json:"merchant_id"`
	BeneficiaryID string       `json:"beneficiary_id"`
	RequestID     string       `json:"request_id"`
	Amount        money.Amount `json:"amount"`
	PurposeCode   string       `json:"purpose_code"`
	Description   string       `json:"description"`
	BankAccount   BankAccount  `json:"bank_account"`
	// status, failure_reason, livemode, metadata and the times.
	remittance.State[OrderStatus]
}

// order is the stored payment order.
type order struct {
	PaymentOrder
	remittance.Kept // account_id, attempts: bank calls that got no answer
}

func (o *order) view() PaymentOrder {
	v := o.PaymentOrder
	v.Object = KindPaymentOrder
	if v.Metadata == nil {
		v.Metadata = map[string]string{}
	}
	return v
}

func decodeOrder(it store.Item) (*order, error) {
	var o order
	if err := json.Unmarshal(it.Data, &o); err != nil {
		return nil, apierr.Wrap("beneficiaries.decodeOrder", apierr.Internal, err)
	}
	o.Read(it.Version)
	return &o, nil
}

func (o *order) move() ledger.BeneficiaryMove {
	return ledger.BeneficiaryMove{AccountID: o.AccountID, Currency: o.Amount.Currency, Livemode: o.Livemode,
		BeneficiaryID: o.BeneficiaryID, Source: ledger.Source{Type: ledger.SourcePaymentOrder, ID: o.ID}, Amount: o.Amount.Value}
}

// event is the event of the order as it is now.
func (o *order) event(typ string, now time.Time) eventlog.Event {
	return eventlog.Event{Type: typ, Account: o.AccountID, Livemode: o.Livemode, At: now, Data: o.view()}
}

// An order is a remittance (shared/domain/remittance): the bank pays it. State
// and Kept give it Made, Unanswered and Version.

// Ref names the order.
func (o *order) Ref() (accountID, id string) { return o.AccountID, o.ID }

// Open reports whether it waits for the bank's final answer.
func (o *order) Open() bool { return o.Status == OrderCreated }

// Item is the order's item.
func (o *order) Item() (store.Item, error) {
	data, err := json.Marshal(o)
	return store.Item{Key: orderKey(o.AccountID, o.ID), Data: data}, err
}

// Decision is the bank's final answer's change: paid (beneficiary_reserved
// -> bank, payment_order.paid) or failed (beneficiary_reserved ->
// beneficiary, payment_order.failed).
func (o *order) Decision(res remittance.Result, now time.Time) (remittance.Change, error) {
	next := *o
	if err := next.Decide(res, OrderPaid, OrderFailed, now); err != nil {
		return remittance.Change{}, err
	}
	c := remittance.Change{Record: &next, Decided: true, Event: next.event(EventOrderPaid, now), Batch: &ledger.Batch{}}
	if res.Paid {
		c.Batch.PaymentOrderPaid(o.move(), now)
		return c, nil
	}
	c.Event.Type = EventOrderFailed
	c.Batch.PaymentOrderFailed(o.move(), now)
	return c, nil
}

// OrderRequest is the body of POST /v1/merchants/settlement-payment-orders.
type OrderRequest struct {
	BeneficiaryID *string           `json:"beneficiary_id" maxlen:"36"`
	Amount        *AmountRequest    `json:"amount"`
	PurposeCode   *string           `json:"purpose_code" maxlen:"3"`
	Description   *string           `json:"description" maxlen:"250"`
	RequestID     *string           `json:"request_id" maxlen:"64"`
	Metadata      map[string]string `json:"metadata" maxlen:"500" maxkey:"40"`
}

// MaxRequestID is the longest request_id.
const MaxRequestID = 64

// orderFields is a valid order request.
type orderFields struct {
	beneficiaryID, purpose, description, requestID string
	amount                                         money.Amount
}

// fingerprint is what makes two orders of one request_id the same order:
// beneficiary, amount, purpose code and description (metadata aside).
func (f orderFields) fingerprint() string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%s\x00%s\x00%s", f.beneficiaryID, f.amount.Value, f.amount.Currency, f.purpose, f.description)))
	return hex.EncodeToString(h[:])
}

func (in *OrderRequest) validate() (orderFields, error) {
	var f orderFields
	if in.BeneficiaryID == nil {
		return f, apierr.Missing("beneficiary_id")
	}
	if _, err := ids.ParseField("beneficiary_id", *in.BeneficiaryID); err != nil {
		return f, err
	}
	amt, err := in.Amount.check("amount")
	if err != nil {
		return f, err
	}
	if in.PurposeCode == nil {
		return f, apierr.Missing("purpose_code")
	}
	if err := kzid.CheckKNP("purpose_code", *in.PurposeCode); err != nil {
		return f, err
	}
	desc, err := checkDescription("description", in.Description, true)
	if err != nil {
		return f, err
	}
	if in.RequestID == nil {
		return f, apierr.Missing("request_id")
	}
	rid := *in.RequestID
	if len(rid) < 1 || len(rid) > MaxRequestID {
		return f, apierr.Invalidf("request_id", "request_id must be 1 to %d characters", MaxRequestID)
	}
	for i := 0; i < len(rid); i++ {
		if rid[i] < 0x21 || rid[i] > 0x7e {
			return f, apierr.Invalidf("request_id", "request_id must be printable ASCII without spaces (a UUID is a good one)")
		}
	}
	if err := metadata.Check(in.Metadata); err != nil {
		return f, err
	}
	return orderFields{beneficiaryID: *in.BeneficiaryID, purpose: *in.PurposeCode, description: desc, requestID: rid, amount: amt}, nil
}

// requestRef is the request_id index entry's Data.
type requestRef struct {
	OrderID     string `json:"payment_order_id"`
	Fingerprint string `json:"fingerprint"`
}

// OrderInput is a payment order to create.
type OrderInput struct {
	AccountID string
	Livemode  bool
	Request   OrderRequest
	Idem      *idempotency.Call // required
}

// OrderResult is what creating answers: the order, and whether it was made
// now (201) or an earlier request with the same request_id made it (200).
type OrderResult struct {
	Order   PaymentOrder
	Created bool
}

// CreateOrder reserves the amount from the beneficiary's balance and queues
// the order for the bank: the request_id's index entry (put-if-absent), the
// order (created), its open-index entry, the reservation entry and
// balances, its payment_order.created event and the Idempotency-Key's
// record, in one transaction; then the queue message.
//
// The order is deduplicated twice: by Idempotency-Key, as every money-moving
// POST, and by request_id in the body, as the provider does. A request_id
// that already made an order, sent with another key, makes nothing: with
// the same beneficiary, amount, purpose code and description it answers 200
// with that order as it is now (recorded under the new key), otherwise 422
// request_id_reused. Errors: Invalid (naming the field), Forbidden (a live
// key: no live bank is wired), NotFound (beneficiary_id: missing or another
// account's), Conflict (beneficiary_disabled), InsufficientFunds (the
// beneficiary holds less: nothing reserved or stored), IdempotencyMismatch
// (request_id_reused), Unavailable; idempotency's.
func (s *Service) CreateOrder(ctx context.Context, in OrderInput) (*OrderResult, error) {
	if !in.Idem.Keyed() {
		return nil, idempotency.ValidateKey("")
	}
	f, err := in.Request.validate()
	if err != nil {
		return nil, err
	}
	if err := connectors.Choose(in.Livemode, connectors.Bank, nil); err != nil {
		return nil, err
	}
	b, err := s.load(ctx, in.AccountID, f.beneficiaryID)
	if err != nil {
		if apierr.Is(err, apierr.NotFound) {
			e := notFound(f.beneficiaryID)
			e.Param = "beneficiary_id"
			return nil, e
		}
		return nil, err
	}
	if b.Status != Active {
		return nil, apierr.New(CodeBeneficiaryDisabled, "beneficiary %s is disabled: enable it before paying it", b.ID).
			WithParam("beneficiary_id")
	}
	now := s.clock().UTC()
	o := &order{PaymentOrder: PaymentOrder{ID: ids.NewAt(now), MerchantID: in.AccountID, BeneficiaryID: b.ID, RequestID: f.requestID,
		Amount: f.amount, PurposeCode: f.purpose, Description: f.description,
		BankAccount: BankAccount{Name: b.Name, IBAN: b.IBAN, BIC: b.BIC, KBe: b.KBe, IIN: b.IIN, BIN: b.BIN},
		State:       remittance.State[OrderStatus]{Status: OrderCreated, Livemode: b.Livemode, Metadata: in.Request.Metadata, CreatedAt: now, UpdatedAt: now}},
		Kept: remittance.Kept{AccountID: in.AccountID}}
	ref, err := json.Marshal(requestRef{OrderID: o.ID, Fingerprint: f.fingerprint()})
	if err != nil {
		return nil, apierr.Wrap("beneficiaries.CreateOrder", apierr.Internal, err)
	}
	ops := []store.Op{store.Put(store.Item{Key: requestKey(in.AccountID, f.requestID), Data: ref}, store.IfAbsent)}
	var batch ledger.Batch
	batch.ReserveForPaymentOrder(o.move(), now)
	more, err := s.flow.Ops(remittance.Change{Record: o, Event: o.event(EventOrderCreated, now), Batch: &batch}, now)
	if err != nil {
		return nil, err
	}
	ops = append(ops, more...)
	view := o.view()
	err = idempotency.Commit(ctx, s.st, in.Idem, idempotency.Outcome{Created: true, Kind: KindPaymentOrder, Value: view}, ops...)
	if cf, ok := store.IsConditionFailed(err); ok && cf.Index == 0 {
		return s.sameRequest(ctx, in, f, cf.Current)
	}
	if err != nil {
		return nil, moneyErr("beneficiaries.CreateOrder", err, ops, "amount.value")
	}
	s.flow.Enqueue(ctx, o.AccountID, o.ID)
	return &OrderResult{Order: view, Created: true}, nil
}

// sameRequest answers an order whose request_id already made one: the
// existing order (200, recorded under this call's key) when the request is
// the same, else 422 request_id_reused.
func (s *Service) sameRequest(ctx context.Context, in OrderInput, f orderFields, current *store.Item) (*OrderResult, error) {
	var ref requestRef
	// The refused write's current item when the store returned it, else a
	// read of the index entry.
	if current == nil || json.Unmarshal(current.Data, &ref) != nil || !ids.Valid(ref.OrderID) {
		it, err := s.st.Get(ctx, requestKey(in.AccountID, f.requestID))
		if err != nil {
			return nil, apierr.Wrap("beneficiaries.sameRequest", apierr.Unavailable, fmt.Errorf("request_id index unreadable: %w", err))
		}
		if err := json.Unmarshal(it.Data, &ref); err != nil {
			return nil, apierr.Wrap("beneficiaries.sameRequest", apierr.Internal, err)
		}
	}
	if ref.Fingerprint != f.fingerprint() {
		return nil, apierr.New(CodeRequestIDReused,
			"request_id %s already made payment order %s with another beneficiary, amount, purpose code or description", f.requestID, ref.OrderID)
	}
	o, err := s.loadOrder(ctx, in.AccountID, ref.OrderID)
	if err != nil {
		return nil, err
	}
	view := o.view()
	if err := idempotency.Commit(ctx, s.st, in.Idem, idempotency.Outcome{Kind: KindPaymentOrder, Value: view}); err != nil {
		if idempotency.FromKey(err) {
			return nil, err
		}
		return nil, apierr.Wrap("beneficiaries.sameRequest", apierr.Unavailable, err)
	}
	return &OrderResult{Order: view}, nil
}

// Message is the payment orders queue's message body, as
// remittance.Flow.Enqueue writes it (IDField payment_order_id) and the
// consumer reads it.
type Message struct {
	AccountID      string `json:"account_id"`
	PaymentOrderID string `json:"payment_order_id"`
}

func (s *Service) loadOrder(ctx context.Context, accountID, id string) (*order, error) {
	it, err := s.st.Get(ctx, orderKey(accountID, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("no such payment order: %s", id)
	}
	if err != nil {
		return nil, apierr.Wrap("beneficiaries.loadOrder", apierr.Unavailable, err)
	}
	return decodeOrder(it)
}

// Order reads one of the account's payment orders; another account's is
// NotFound. Errors: NotFound, Unavailable, Internal.
func (s *Service) Order(ctx context.Context, accountID, id string) (*PaymentOrder, error) {
	o, err := s.loadOrder(ctx, accountID, id)
	if err != nil {
		return nil, err
	}
	v := o.view()
	return &v, nil
}

// OrderFilter narrows a payment order list; zero fields match everything.
type OrderFilter struct {
	Status        string
	BeneficiaryID string
	From, To      time.Time
}

// Orders pages the account's payment orders newest first: one partition,
// the created range as a key range, status and beneficiary applied while
// paging. Errors: Invalid (cursor), Unavailable, Internal.
func (s *Service) Orders(ctx context.Context, accountID string, f OrderFilter, p listing.Params) ([]PaymentOrder, string, error) {
	q := listQuery(orderPK(accountID), f.Status == "" && f.BeneficiaryID == "", f.From, f.To, p)
	return listing.Collect(ctx, s.st, q, p.Limit, listing.DefaultBudget, func(it store.Item) (PaymentOrder, bool, error) {
		o, err := decodeOrder(it)
		if err != nil {
			return PaymentOrder{}, false, err
		}
		ok := (f.Status == "" || string(o.Status) == f.Status) && (f.BeneficiaryID == "" || o.BeneficiaryID == f.BeneficiaryID) &&
			inRange(o.CreatedAt, f.From, f.To)
		return o.view(), ok, nil
	})
}

// MaxBankAttempts is how many bank calls may go unanswered before the
// consumer asks the bank what became of the order (Lookup) and decides it:
// paid if the bank paid it, else failed (bank_timeout), the reservation
// released.
const MaxBankAttempts = remittance.MaxAttempts

// ask sends o to the bank.
func (s *Service) ask(ctx context.Context, o *order) (BankResult, error) {
	return s.bank.Pay(ctx, BankRequest{PaymentOrderID: o.ID, Amount: o.Amount.Value, Currency: o.Amount.Currency,
		IBAN: o.BankAccount.IBAN, BIC: o.BankAccount.BIC, Livemode: o.Livemode})
}

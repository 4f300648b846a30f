package wallet

import (
	"encoding/json"
	"time"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Kind is the resource kind of a wallet transaction, for version changes.
const Kind = "wallet_transaction"

// Status is a wallet transaction's status (provider notes: NEW, PROCESSING,
// SUCCESS, FAILED; the rest are where capture, cancel and refund lead).
type Status string

// Statuses. Allowed moves are in transitions, enforced in one place (move).
const (
	StatusNew               Status = "NEW"                // created; the shopper's wallet has not been asked yet
	StatusProcessing        Status = "PROCESSING"         // the push is in the shopper's wallet app; waiting for them
	StatusSuccess           Status = "SUCCESS"            // the shopper confirmed: the amount is held (authorised)
	StatusFailed            Status = "FAILED"             // declined, insufficient funds, or not confirmed in time
	StatusCaptured          Status = "CAPTURED"           // the hold was captured (in full or in part, once)
	StatusCancelled         Status = "CANCELLED"          // voided before capture (or before the shopper answered)
	StatusPartiallyRefunded Status = "PARTIALLY_REFUNDED" // part of the captured amount was refunded
	StatusRefunded          Status = "REFUNDED"           // the whole captured amount was refunded
)

// Statuses lists every status, in lifecycle order.
var Statuses = []Status{StatusNew, StatusProcessing, StatusSuccess, StatusFailed, StatusCaptured, StatusCancelled, StatusPartiallyRefunded, StatusRefunded}

// transitions is the one table of allowed moves (docs/wallet.md repeats it).
var transitions = map[Status][]Status{
	StatusNew:               {StatusProcessing, StatusSuccess, StatusFailed, StatusCancelled},
	StatusProcessing:        {StatusSuccess, StatusFailed, StatusCancelled},
	StatusSuccess:           {StatusCaptured, StatusCancelled},
	StatusCaptured:          {StatusPartiallyRefunded, StatusRefunded},
	StatusPartiallyRefunded: {StatusPartiallyRefunded, StatusRefunded},
}

// CanTransition reports whether from -> to is an allowed move.
func CanTransition(from, to Status) bool {
	for _, s := range transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// Open reports whether the shopper may still answer (NEW or PROCESSING):
// such a transaction is in the open index until it leaves these states.
func (s Status) Open() bool { return s == StatusNew || s == StatusProcessing }

// Event types: one per status a change leads to, plus the creation.
const (
	EventCreated    = "wallet.created"
	EventProcessing = "wallet.processing"
	EventSucceeded  = "wallet.succeeded"
	EventFailed     = "wallet.failed"
	EventCaptured   = "wallet.captured"
	EventCancelled  = "wallet.cancelled"
	EventRefunded   = "wallet.refunded"
)

// EventTypes are every type the wallet emits (the webhooks catalogue lists them).
var EventTypes = []string{EventCreated, EventProcessing, EventSucceeded, EventFailed, EventCaptured, EventCancelled, EventRefunded}

// eventFor is the event type a move to s writes.
func eventFor(s Status) string {
	switch s {
	case StatusProcessing:
		return EventProcessing
	case StatusSuccess:
		return EventSucceeded
	case StatusFailed:
		return EventFailed
	case StatusCaptured:
		return EventCaptured
	case StatusCancelled:
		return EventCancelled
	case StatusPartiallyRefunded, StatusRefunded:
		return EventRefunded
	}
	return EventCreated
}

// Failure reasons (failureReason).
const (
	ReasonDeclined     = "declined_by_shopper"
	ReasonInsufficient = "insufficient_funds"
	ReasonTimeout      = "confirmation_timeout"
	ReasonUnavailable  = "wallet_unavailable"
)

// Transaction is the public representation (spec §2.3 plus the state the
// other operations add). Amounts are integers in minor units.
type Transaction struct {
	WalletTransactionID     string            `json:"walletTransactionId"`
	WalletTransactionStatus Status            `json:"walletTransactionStatus"`
	OrderReference          string            `json:"orderReference"`
	Amount                  int64             `json:"amount"`
	Currency                string            `json:"currency"`
	PhoneNumber             string            `json:"phoneNumber"`
	CapturedAmount          int64             `json:"capturedAmount"`
	RefundedAmount          int64             `json:"refundedAmount"`
	FailureReason           *string           `json:"failureReason"`
	Livemode                bool              `json:"livemode"`
	Metadata                map[string]string `json:"metadata"`
	CreatedAt               time.Time         `json:"createdAt"`
	UpdatedAt               time.Time         `json:"updatedAt"`
}

// record is the stored transaction. The IIN is kept for the wallet
// provider and never shown.
type record struct {
	ID             string            `json:"id"`
	AccountID      string            `json:"account_id"`
	Status         Status            `json:"status"`
	OrderReference string            `json:"order_reference"`
	Amount         int64             `json:"amount"`
	Currency       string            `json:"currency"`
	Phone          string            `json:"phone"`
	IIN            string            `json:"iin"`
	Captured       int64             `json:"captured"`
	Refunded       int64             `json:"refunded"`
	FailureReason  string            `json:"failure_reason,omitempty"`
	Live           bool              `json:"live"`
	IdempotencyKey string            `json:"idempotency_key"`
	Metadata       map[string]string `json:"metadata,omitempty"`
	CreatedAt      time.Time         `json:"created_at"`
	UpdatedAt      time.Time         `json:"updated_at"`
	version        int64
}

// View is the public representation of the record.
func (r *record) View() Transaction {
	t := Transaction{WalletTransactionID: r.ID, WalletTransactionStatus: r.Status, OrderReference: r.OrderReference,
		Amount: r.Amount, Currency: r.Currency, PhoneNumber: r.Phone, CapturedAmount: r.Captured, RefundedAmount: r.Refunded,
		Livemode: r.Live, Metadata: r.Metadata, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if t.Metadata == nil {
		t.Metadata = map[string]string{}
	}
	if r.FailureReason != "" {
		reason := r.FailureReason
		t.FailureReason = &reason
	}
	return t
}

func txPK(accountID string) string { return "wtx#" + accountID }

// txKey addresses one transaction; the UUIDv7 sort key lists newest first
// with a descending query and makes a created range a key range.
func txKey(accountID, id string) store.Key {
	return store.Key{Table: store.TablePayments, PK: txPK(accountID), SK: id}
}

func (r *record) item() (store.Item, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return store.Item{}, apierr.Wrap("wallet.item", apierr.Internal, err)
	}
	return store.Item{Key: txKey(r.AccountID, r.ID), Data: data}, nil
}

func decodeRecord(it store.Item) (*record, error) {
	var r record
	if err := json.Unmarshal(it.Data, &r); err != nil {
		return nil, err
	}
	r.version = it.Version
	return &r, nil
}

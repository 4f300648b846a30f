// Package orders is the Gate API's ordering: orders paid from the account's
// prepaid balance (one transaction reserves the charge with the order and the
// idempotency record), their fulfilment through a vendor by a queue consumer,
// and the reconciler that re-queues orders whose queue message was lost.
//
// # Concurrent orders on one balance
//
// The debit is conditioned on the balance item's version as well as on the
// balance staying non-negative, so balance_before/balance_after are the
// values the balance really had. Dropping the version condition would remove
// all contention, but then no value inside the transaction says what the
// balance was, and the order would have to show guessed or missing amounts.
//
// In Lambda, 200 concurrent orders are 200 instances racing on one item, and
// an in-process lock (Config.SerializeBalances) cannot help them. Pure
// optimistic retries collapse there: every commit makes every other racer's
// balance version stale, so the store is flooded with attempts that cannot
// win (measured on DynamoDB Local: 10-14 s for 200 orders, many past the
// function timeout). So an order that loses the race with a freshly read
// balance queues on a per-balance lease instead (lease.go): a put-if-absent
// item with a short expiry, polled with jittered single-item writes, whose
// delete rides in the holder's order transaction. Uncontended orders never
// touch the lease (one write call); a contended order pays one extra write to
// take the lease and one read after taking it. The lease is only traffic
// control: correctness rests on the version condition alone, so an expired or
// stolen lease costs time, never money. Waiters re-read the balance every
// other poll and are refused (insufficient_balance) once it cannot pay them.
//
// Within one process (SerializeBalances) an order hands its write to a store
// that pipelines (store.Pipeliner) and releases the balance lock before the
// verdict, so the next order builds on its predicted outcome: the embedded
// store commits them in one bbolt transaction, the DynamoDB adapter in one
// TransactWriteItems (one debit of the sum). If a pipelined order's write
// fails, those built on it fail their version condition; they restart the
// chain from the store's answer (balanceCache.broken), not through the lease,
// since they lost no race with another process.
//
// # Service and handlers
//
// Place, Get, List, ForceOutcome and Fulfil take typed input and return
// typed results or apierr-kinded errors; only routes.go knows HTTP (decode,
// call, render), so a queue consumer, a scheduled job or the admin CLI calls
// the same service. Place writes the idempotency record through
// idempotency.Commit in the order's transaction; its PlaceInput carries the
// keyed call (httpapi.Request.Idem).
package orders

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Kind is the resource kind of an order, for version changes.
const Kind = "gate_order"

// Status is an order's status (spec §3).
type Status string

// Order statuses: pending -> completed | failed, nothing else (transitions).
const (
	StatusPending   Status = "pending"
	StatusCompleted Status = "completed"
	StatusFailed    Status = "failed"
)

// Statuses lists every status, in the order of an order's life.
var Statuses = []Status{StatusPending, StatusCompleted, StatusFailed}

// transitions is the state machine: only a pending order changes, once, to
// one of the final statuses (Service.finish is the one place it happens).
var transitions = map[Status][]Status{StatusPending: {StatusCompleted, StatusFailed}}

// CanTransition reports whether from -> to is allowed.
func CanTransition(from, to Status) bool { return slices.Contains(transitions[from], to) }

// Valid reports whether s is a known status.
func (s Status) Valid() bool { return slices.Contains(Statuses, s) }

// Limits of the request body, documented in the OpenAPI fragment.
const (
	MaxQuantity       = 100
	MaxExternalRefLen = 64
)

// record is the stored order: amounts in minor units, plus what fulfilment
// needs and the API does not show (the customer account, the vendor route).
type record struct {
	ID              string            `json:"id"`
	AccountID       string            `json:"account_id"`
	ProductID       int64             `json:"product_id"`
	ProductSlug     string            `json:"product_slug"`
	ProductType     string            `json:"product_type"`
	ExternalRef     string            `json:"external_ref,omitempty"`
	IdempotencyKey  string            `json:"idempotency_key"`
	Status          Status            `json:"status"`
	Currency        string            `json:"currency"`
	Charged         int64             `json:"charged"`
	BalanceBefore   int64             `json:"balance_before"`
	BalanceAfter    int64             `json:"balance_after"`
	Quantity        int64             `json:"quantity"`
	UnitPrice       int64             `json:"unit_price"`
	IsTest          bool              `json:"is_test"`
	Live            bool              `json:"live"` // placed with a live-mode key
	RegionCode      string            `json:"region_code"`
	CustomerAccount map[string]string `json:"customer_account,omitempty"`
	Content         map[string]string `json:"content,omitempty"`
	FailureReason   string            `json:"failure_reason,omitempty"`
	Refunded        bool              `json:"refunded,omitempty"`
	Metadata        map[string]string `json:"metadata,omitempty"`
	CreatedAt       time.Time         `json:"created_at"`
	UpdatedAt       time.Time         `json:"updated_at"`
	CompletedAt     *time.Time        `json:"completed_at,omitempty"`
	FailedAt        *time.Time        `json:"failed_at,omitempty"`
	version         int64             // the store version read; 0 for a new record
}

// Order is the public representation (provider notes, "Gate API").
type Order struct {
	ID             string            `json:"id"`
	ProductID      int64             `json:"product_id"`
	ExternalRef    *string           `json:"external_ref"`
	IdempotencyKey string            `json:"idempotency_key"`
	Status         Status            `json:"status"`
	CurrencyCode   string            `json:"currency_code"`
	ChargedAmount  string            `json:"charged_amount"`
	BalanceBefore  string            `json:"balance_before"`
	BalanceAfter   string            `json:"balance_after"`
	Quantity       int64             `json:"quantity"`
	UnitPrice      string            `json:"unit_price"`
	IsTest         bool              `json:"is_test"`
	RegionCode     string            `json:"region_code"`
	CreatedAt      time.Time         `json:"created_at"`
	UpdatedAt      time.Time         `json:"updated_at"`
	CompletedAt    *time.Time        `json:"completed_at"`
	FailedAt       *time.Time        `json:"failed_at"`
	FailureReason  *string           `json:"failure_reason"`
	OrderContent   map[string]string `json:"order_content"`
	Metadata       map[string]string `json:"metadata"`
}

// View is the public representation of the record.
func (r *record) View() Order {
	c, _ := money.ParseCurrency(r.Currency)
	o := Order{
		ID: r.ID, ProductID: r.ProductID, IdempotencyKey: r.IdempotencyKey, Status: r.Status,
		CurrencyCode: r.Currency, ChargedAmount: money.FormatDecimal(r.Charged, c),
		BalanceBefore: money.FormatDecimal(r.BalanceBefore, c), BalanceAfter: money.FormatDecimal(r.BalanceAfter, c),
		Quantity: r.Quantity, UnitPrice: money.FormatDecimal(r.UnitPrice, c), IsTest: r.IsTest,
		RegionCode: r.RegionCode, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		CompletedAt: r.CompletedAt, FailedAt: r.FailedAt, OrderContent: map[string]string{}, Metadata: r.Metadata,
	}
	if r.ExternalRef != "" {
		ref := r.ExternalRef
		o.ExternalRef = &ref
	}
	if r.FailureReason != "" {
		reason := r.FailureReason
		o.FailureReason = &reason
	}
	for k, v := range r.Content {
		o.OrderContent[k] = v
	}
	if o.Metadata == nil {
		o.Metadata = map[string]string{}
	}
	return o
}

func orderPK(accountID string) string { return "ord#" + accountID }

// orderKey addresses one order; the sort key is the UUIDv7 id, so an
// account's orders list newest first with a descending query.
func orderKey(accountID, id string) store.Key {
	return store.Key{Table: store.TableOrders, PK: orderPK(accountID), SK: id}
}

func (r *record) item() (store.Item, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return store.Item{}, apierr.Wrap("orders.item", apierr.Internal, err)
	}
	return store.Item{Key: orderKey(r.AccountID, r.ID), Data: data}, nil
}

func decodeRecord(it store.Item) (*record, error) {
	var r record
	if err := json.Unmarshal(it.Data, &r); err != nil {
		return nil, err
	}
	r.version = it.Version
	return &r, nil
}

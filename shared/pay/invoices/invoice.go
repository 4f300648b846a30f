package invoices

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate/shared/domain/kzid"
	"github.com/paygate/paygate/shared/domain/metadata"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
)

// Kind is the resource kind of an invoice (version changes: metadata
// before 2024-01-15).
const Kind = "invoice"

// Status is an invoice's state.
type Status string

const (
	Created   Status = "created"   // sent to the payer's bank; waiting for the payer
	Paid      Status = "paid"      // the payer paid it in the banking app: the amount is the merchant's (pending, then available)
	Expired   Status = "expired"   // expires_at passed unpaid
	Cancelled Status = "cancelled" // the merchant cancelled it unpaid
)

// Statuses lists every status.
var Statuses = []Status{Created, Paid, Expired, Cancelled}

// transitions is the state machine: an invoice ends once.
var transitions = map[Status][]Status{Created: {Paid, Expired, Cancelled}}

// CanTransition reports whether from -> to is allowed.
func (from Status) CanTransition(to Status) bool { return slices.Contains(transitions[from], to) }

// Event types of invoices (the webhooks catalogue lists them).
const (
	EventPaid      = "invoice.paid"
	EventExpired   = "invoice.expired"
	EventCancelled = "invoice.cancelled"
)

// EventTypes are every type this package writes.
var EventTypes = []string{EventPaid, EventExpired, EventCancelled}

// Payer is whom the invoice is sent to: a phone number (E.164), or an IIN
// (a person) or a BIN (a company); exactly one.
type Payer struct {
	Phone string `json:"phone,omitempty"`
	IIN   string `json:"iin,omitempty"`
	BIN   string `json:"bin,omitempty"`
}

// LineItem is one line of an invoice.
type LineItem struct {
	Name       string `json:"name"`
	Quantity   int64  `json:"quantity"`
	UnitAmount int64  `json:"unit_amount"` // minor units of the invoice's currency
	Amount     int64  `json:"amount"`      // quantity x unit_amount
}

// Invoice is a bank invoice as the API shows it.
type Invoice struct {
	ID             string            `json:"id"`
	Object         string            `json:"object"`
	Amount         money.Amount      `json:"amount"`
	Payer          Payer             `json:"payer"`
	Description    string            `json:"description"`
	OrderReference string            `json:"order_reference"`
	Status         Status            `json:"status"`
	LineItems      []LineItem        `json:"line_items"`
	Livemode       bool              `json:"livemode"`
	Metadata       map[string]string `json:"metadata"`
	CreatedAt      time.Time         `json:"created_at"`
	UpdatedAt      time.Time         `json:"updated_at"`
	ExpiresAt      time.Time         `json:"expires_at"`
	PaidAt         *time.Time        `json:"paid_at,omitempty"`
	ExpiredAt      *time.Time        `json:"expired_at,omitempty"`
	CancelledAt    *time.Time        `json:"cancelled_at,omitempty"`
}

// record is the stored invoice.
type record struct {
	Invoice
	AccountID string `json:"account_id"`
	version   int64
}

// StatusAt is the invoice's status at now: a created invoice whose
// expires_at has passed is expired, whether or not the expirer has written
// it yet (expiry is checked in code).
func (r *record) StatusAt(now time.Time) Status {
	if r.Status == Created && !now.Before(r.ExpiresAt) {
		return Expired
	}
	return r.Status
}

// view is the invoice as the API shows it at now.
func (r *record) view(now time.Time) Invoice {
	v := r.Invoice
	v.Object = Kind
	if s := r.StatusAt(now); s != v.Status {
		at := v.ExpiresAt
		v.Status, v.ExpiredAt = s, &at
	}
	if v.Metadata == nil {
		v.Metadata = map[string]string{}
	}
	if v.LineItems == nil {
		v.LineItems = []LineItem{}
	}
	return v
}

func (r *record) item() (store.Item, error) {
	data, err := json.Marshal(r)
	return store.Item{Key: invoiceKey(r.AccountID, r.ID), Data: data}, err
}

func decode(it store.Item) (*record, error) {
	var r record
	if err := json.Unmarshal(it.Data, &r); err != nil {
		return nil, apierr.Wrap("invoices.decode", apierr.Internal, err)
	}
	r.version = it.Version
	return &r, nil
}

// Key layout (table ledger, beside the books a paid invoice posts to):
//
//   - inv#<account> / <invoice id>: an invoice (UUIDv7: newest first by a
//     descending query).
//   - invexp#<shard> / <expires_at>#<account>#<invoice id>: invoices that
//     are still created, by expiry (a dueindex); put with the invoice,
//     removed by the write that ends it (paid, cancelled, expired). The
//     expirer reads the due ones, shard by shard (no Scan).
func invoicePK(accountID string) string { return "inv#" + accountID }

func invoiceKey(accountID, id string) store.Key {
	return store.Key{Table: store.TableLedger, PK: invoicePK(accountID), SK: id}
}

// expiryIndex holds the invoices still created, by their expiry.
var expiryIndex = dueindex.Index{Table: store.TableLedger, Prefix: "invexp#"}

// Limits of an invoice.
const (
	MaxDescription    = 500
	MaxOrderReference = 128
	MaxLineItems      = 100
	MaxLineItemName   = 200
	MaxQuantity       = 1_000_000
	DefaultExpiry     = 24 * time.Hour
	MaxExpiry         = 30 * 24 * time.Hour
	// MinExpiry keeps an invoice open long enough for the payer to see it.
	MinExpiry = time.Minute
)

// AmountRequest is an amount in a request: pointers tell absent from zero.
type AmountRequest struct {
	Value    *int64  `json:"value"`
	Currency *string `json:"currency" maxlen:"3"`
}

// PayerRequest is the payer in a request.
type PayerRequest struct {
	Phone *string `json:"phone" maxlen:"16"`
	IIN   *string `json:"iin" maxlen:"12"`
	BIN   *string `json:"bin" maxlen:"12"`
}

// LineItemRequest is one line item in a request.
type LineItemRequest struct {
	Name       *string `json:"name" maxlen:"200"`
	Quantity   *int64  `json:"quantity"`
	UnitAmount *int64  `json:"unit_amount"`
}

// CreateRequest is the body of POST /v1/invoices.
type CreateRequest struct {
	Amount         *AmountRequest    `json:"amount"`
	Payer          *PayerRequest     `json:"payer"`
	Description    *string           `json:"description" maxlen:"500"`
	OrderReference *string           `json:"order_reference" maxlen:"128"`
	ExpiresAt      *string           `json:"expires_at" maxlen:"64"`
	LineItems      []LineItemRequest `json:"line_items"`
	Metadata       map[string]string `json:"metadata" maxlen:"500" maxkey:"40"`
}

// validate checks the body at now and returns the invoice's fields.
func (in *CreateRequest) validate(now time.Time) (*Invoice, error) {
	inv := &Invoice{Metadata: in.Metadata}
	if in.Amount == nil {
		return nil, apierr.Missing("amount")
	}
	if in.Amount.Value == nil {
		return nil, apierr.Missing("amount.value")
	}
	if v := *in.Amount.Value; v < 1 || v > money.MaxMinor {
		return nil, apierr.Invalidf("amount.value", "amount.value must be an integer from 1 to %d minor units", money.MaxMinor)
	}
	if in.Amount.Currency == nil {
		return nil, apierr.Missing("amount.currency")
	}
	if _, err := money.ParseCurrencyField("amount.currency", *in.Amount.Currency); err != nil {
		return nil, err
	}
	inv.Amount = money.Amount{Value: *in.Amount.Value, Currency: *in.Amount.Currency}
	p, err := in.Payer.check()
	if err != nil {
		return nil, err
	}
	inv.Payer = p
	if in.Description == nil {
		return nil, apierr.Missing("description")
	}
	if n := utf8.RuneCountInString(strings.TrimSpace(*in.Description)); n < 1 || n > MaxDescription {
		return nil, apierr.Invalidf("description", "description must be 1 to %d characters (not blank)", MaxDescription)
	}
	inv.Description = *in.Description
	if in.OrderReference == nil {
		return nil, apierr.Missing("order_reference")
	}
	if n := utf8.RuneCountInString(*in.OrderReference); n < 1 || n > MaxOrderReference {
		return nil, apierr.Invalidf("order_reference", "order_reference must be 1 to %d characters", MaxOrderReference)
	}
	inv.OrderReference = *in.OrderReference
	inv.ExpiresAt = now.Add(DefaultExpiry)
	if in.ExpiresAt != nil {
		t, err := time.Parse(time.RFC3339, *in.ExpiresAt)
		if err != nil {
			return nil, apierr.Invalidf("expires_at", "expires_at must be an RFC 3339 date-time, e.g. 2024-01-15T10:00:00Z")
		}
		switch {
		case t.Before(now.Add(MinExpiry)):
			return nil, apierr.Invalidf("expires_at", "expires_at must be at least a minute in the future")
		case t.After(now.Add(MaxExpiry)):
			return nil, apierr.Invalidf("expires_at", "expires_at must be within 30 days")
		}
		inv.ExpiresAt = t.UTC()
	}
	if inv.LineItems, err = lineItems(in.LineItems, inv.Amount.Value); err != nil {
		return nil, err
	}
	return inv, metadata.Check(in.Metadata)
}

// check holds the payer to exactly one of phone, iin, bin, each valid.
func (p *PayerRequest) check() (Payer, error) {
	if p == nil {
		return Payer{}, apierr.Missing("payer")
	}
	n := 0
	for _, s := range []*string{p.Phone, p.IIN, p.BIN} {
		if s != nil {
			n++
		}
	}
	if n != 1 {
		return Payer{}, apierr.Invalidf("payer", "payer must hold exactly one of phone, iin or bin")
	}
	switch {
	case p.Phone != nil:
		return Payer{Phone: *p.Phone}, kzid.CheckPhone("payer.phone", *p.Phone)
	case p.IIN != nil:
		return Payer{IIN: *p.IIN}, kzid.CheckIIN("payer.iin", *p.IIN)
	}
	return Payer{BIN: *p.BIN}, kzid.CheckBIN("payer.bin", *p.BIN)
}

// lineItems checks the line items: none, or 1 to MaxLineItems whose
// amounts sum to the invoice's amount exactly.
func lineItems(in []LineItemRequest, amount int64) ([]LineItem, error) {
	if in == nil {
		return nil, nil
	}
	if len(in) == 0 || len(in) > MaxLineItems {
		return nil, apierr.Invalidf("line_items", "line_items must hold 1 to %d items (or be left out)", MaxLineItems)
	}
	out := make([]LineItem, len(in))
	var sum int64
	for i, li := range in {
		at := func(f string) string { return fmt.Sprintf("line_items[%d].%s", i, f) }
		if li.Name == nil {
			return nil, apierr.Missing(at("name"))
		}
		if n := utf8.RuneCountInString(strings.TrimSpace(*li.Name)); n < 1 || n > MaxLineItemName {
			return nil, apierr.Invalidf(at("name"), "%s must be 1 to %d characters (not blank)", at("name"), MaxLineItemName)
		}
		if li.Quantity == nil {
			return nil, apierr.Missing(at("quantity"))
		}
		if q := *li.Quantity; q < 1 || q > MaxQuantity {
			return nil, apierr.Invalidf(at("quantity"), "%s must be an integer from 1 to %d", at("quantity"), MaxQuantity)
		}
		if li.UnitAmount == nil {
			return nil, apierr.Missing(at("unit_amount"))
		}
		if u := *li.UnitAmount; u < 1 || u > money.MaxMinor {
			return nil, apierr.Invalidf(at("unit_amount"), "%s must be an integer from 1 to %d minor units", at("unit_amount"), money.MaxMinor)
		}
		line, err := money.Mul(*li.UnitAmount, *li.Quantity)
		if err == nil {
			sum, err = money.Add(sum, line)
		}
		if err != nil || line > money.MaxMinor || sum > money.MaxMinor {
			return nil, apierr.Invalidf(at("quantity"), "line_items add up to more than %d minor units", money.MaxMinor)
		}
		out[i] = LineItem{Name: *li.Name, Quantity: *li.Quantity, UnitAmount: *li.UnitAmount, Amount: line}
	}
	if sum != amount {
		return nil, apierr.New(CodeLineItemsTotalMismatch, "the line items add up to %d, not amount.value %d", sum, amount)
	}
	return out, nil
}

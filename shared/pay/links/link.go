package links

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Kind is the resource kind of a payment link, for version changes (the
// platform's: metadata is absent before 2024-01-15) and webhooks' data.
const Kind = "payment_link"

// Status is a payment link's state.
type Status string

const (
	StatusActive    Status = "active"    // takes a payment until it expires
	StatusPaid      Status = "paid"      // a payment was authorised on it (once)
	StatusCancelled Status = "cancelled" // the merchant cancelled it
	StatusExpired   Status = "expired"   // expires_at passed before it was paid
)

// Statuses lists every status, in the order of a link's life.
var Statuses = []Status{StatusActive, StatusPaid, StatusCancelled, StatusExpired}

// transitions is the state machine: only an active link changes, to one of
// the final statuses. Every change goes through Link.move.
var transitions = map[Status][]Status{
	StatusActive: {StatusPaid, StatusCancelled, StatusExpired},
}

// CanTransition reports whether from -> to is allowed.
func CanTransition(from, to Status) bool { return slices.Contains(transitions[from], to) }

// Valid reports whether s is a known status.
func (s Status) Valid() bool { return slices.Contains(Statuses, s) }

// Event types a link writes, in the transaction of the change they report.
const (
	EventPaid      = "payment_link.paid"
	EventCancelled = "payment_link.cancelled"
	EventExpired   = "payment_link.expired"
)

// EventTypes are every type the links emit (the webhooks catalogue lists them).
var EventTypes = []string{EventPaid, EventCancelled, EventExpired}

// eventFor is the event a move to s writes.
var eventFor = map[Status]string{StatusPaid: EventPaid, StatusCancelled: EventCancelled, StatusExpired: EventExpired}

// Capture modes: a link's capture becomes its payment's capture mode.
var captureModes = []payments.CaptureMode{payments.CaptureAutomatic, payments.CaptureManual}

// Link is the public representation.
type Link struct {
	ID             string               `json:"id"`
	Object         string               `json:"object"`
	Status         Status               `json:"status"`
	URL            string               `json:"url"`
	Amount         money.Amount         `json:"amount"`
	Description    string               `json:"description,omitempty"`
	OrderReference string               `json:"order_reference,omitempty"`
	CustomerID     string               `json:"customer_id,omitempty"`
	Capture        payments.CaptureMode `json:"capture"`
	SuccessURL     string               `json:"success_url,omitempty"`
	FailureURL     string               `json:"failure_url,omitempty"`
	CancelURL      string               `json:"cancel_url,omitempty"`
	ShopperLocale  string               `json:"shopper_locale,omitempty"`
	CountryCode    string               `json:"country_code,omitempty"`
	TransactionID  string               `json:"transaction_id,omitempty"` // the payment that paid it
	Livemode       bool                 `json:"livemode"`
	Metadata       map[string]string    `json:"metadata"`
	ExpiresAt      time.Time            `json:"expires_at"`
	CreatedAt      time.Time            `json:"created_at"`
	UpdatedAt      time.Time            `json:"updated_at"`
	PaidAt         *time.Time           `json:"paid_at,omitempty"`
	CancelledAt    *time.Time           `json:"cancelled_at,omitempty"`
	ExpiredAt      *time.Time           `json:"expired_at,omitempty"`
}

// record is the stored link: the public fields, and what only the service
// and its page use (the merchant's name and account, the current session).
type record struct {
	ID              string               `json:"id"`
	AccountID       string               `json:"account_id"`
	MerchantAccount string               `json:"merchant_account"`
	MerchantName    string               `json:"merchant_name"`
	Livemode        bool                 `json:"livemode"`
	Status          Status               `json:"status"`
	URL             string               `json:"url"`
	Amount          money.Amount         `json:"amount"`
	Description     string               `json:"description,omitempty"`
	OrderReference  string               `json:"order_reference,omitempty"`
	CustomerID      string               `json:"customer_id,omitempty"`
	Capture         payments.CaptureMode `json:"capture"`
	SuccessURL      string               `json:"success_url,omitempty"`
	FailureURL      string               `json:"failure_url,omitempty"`
	CancelURL       string               `json:"cancel_url,omitempty"`
	ShopperLocale   string               `json:"shopper_locale,omitempty"`
	CountryCode     string               `json:"country_code,omitempty"`
	Metadata        map[string]string    `json:"metadata,omitempty"`
	// SessionID is the checkout session the page pays through now; only it
	// takes the link's payment (a new one replaces it once it ends).
	SessionID     string     `json:"session_id,omitempty"`
	TransactionID string     `json:"transaction_id,omitempty"`
	ExpiresAt     time.Time  `json:"expires_at"`
	CreatedAt     time.Time  `json:"created_at"`
	UpdatedAt     time.Time  `json:"updated_at"`
	PaidAt        *time.Time `json:"paid_at,omitempty"`
	CancelledAt   *time.Time `json:"cancelled_at,omitempty"`
	ExpiredAt     *time.Time `json:"expired_at,omitempty"`

	version    int64     // stored version read; 0 for a new record
	readStatus Status    // status when read: the change's counters move from it
	readExpiry time.Time // expiry when read: its index entry moves from it
	events     []string  // types queued by move, written by writeOps
}

// StatusAt is the status as seen at now: an active link past its expiry is
// expired, whether or not the expirer has stored it yet.
func (r *record) StatusAt(now time.Time) Status {
	if r.Status == StatusActive && !now.Before(r.ExpiresAt) {
		return StatusExpired
	}
	return r.Status
}

// View is the public representation at now.
func (r *record) View(now time.Time) Link {
	md := r.Metadata
	if md == nil {
		md = map[string]string{}
	}
	return Link{
		ID: r.ID, Object: Kind, Status: r.StatusAt(now), URL: r.URL, Amount: r.Amount, Description: r.Description,
		OrderReference: r.OrderReference, CustomerID: r.CustomerID, Capture: r.Capture, SuccessURL: r.SuccessURL,
		FailureURL: r.FailureURL, CancelURL: r.CancelURL, ShopperLocale: r.ShopperLocale, CountryCode: r.CountryCode,
		TransactionID: r.TransactionID, Livemode: r.Livemode, Metadata: md, ExpiresAt: r.ExpiresAt, CreatedAt: r.CreatedAt,
		UpdatedAt: r.UpdatedAt, PaidAt: r.PaidAt, CancelledAt: r.CancelledAt, ExpiredAt: r.ExpiredAt,
	}
}

// move is the one place a link's status changes: it checks the state
// machine, stamps the time and queues the change's event. An illegal move
// is a 409 naming the status the link has at now.
func (r *record) move(to Status, now time.Time) error {
	if !CanTransition(r.Status, to) || (to != StatusExpired && r.StatusAt(now) != StatusActive) {
		return stateConflict(r, now)
	}
	now = now.UTC()
	r.Status, r.UpdatedAt = to, now
	switch to {
	case StatusPaid:
		r.PaidAt = &now
	case StatusCancelled:
		r.CancelledAt = &now
	case StatusExpired:
		r.ExpiredAt = &now
	}
	r.events = append(r.events, eventFor[to])
	return nil
}

// stateConflict is the 409 of a change the link's status refuses; its code
// names the status (payment_link_paid, payment_link_cancelled,
// payment_link_expired), so the page can show it.
func stateConflict(r *record, now time.Time) *apierr.Error {
	st := r.StatusAt(now)
	if code, ok := statusCodes[st]; ok {
		return apierr.New(code, "payment link %s is %s", r.ID, st)
	}
	return apierr.Kindf(apierr.Conflict, "payment link %s is %s", r.ID, st)
}

func decodeRecord(it store.Item) (*record, error) {
	var r record
	if err := json.Unmarshal(it.Data, &r); err != nil {
		return nil, apierr.Wrap("links.decode", apierr.Internal, err)
	}
	r.version, r.readStatus, r.readExpiry = it.Version, r.Status, r.ExpiresAt
	return &r, nil
}

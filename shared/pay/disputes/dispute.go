package disputes

import (
	"slices"
	"time"

	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// Kind is the resource kind of a dispute (version changes; metadata is
// absent before 2024-01-15).
const Kind = "dispute"

// Status is a dispute's state (Stripe's names).
type Status string

const (
	// NeedsResponse: opened; the merchant may add evidence, submit it or
	// accept the dispute until DueBy, after which it is lost.
	NeedsResponse Status = "needs_response"
	// UnderReview: the evidence was submitted; the issuer decides.
	UnderReview Status = "under_review"
	Won         Status = "won"  // the issuer sided with the merchant: the hold is released
	Lost        Status = "lost" // accepted, not answered in time, or decided for the cardholder
)

// Statuses lists every status (the list filter and the OpenAPI enum).
var Statuses = []Status{NeedsResponse, UnderReview, Won, Lost}

// transitions is the state machine: from -> allowed next states. Adding
// evidence keeps needs_response (a change with its event); submitting moves
// to under_review, accepting (or the due date passing) to lost; the review
// ends won or lost. Won and lost are final.
var transitions = map[Status][]Status{
	NeedsResponse: {NeedsResponse, UnderReview, Lost},
	UnderReview:   {Won, Lost},
}

// Valid reports whether s is a known status.
func (s Status) Valid() bool { return slices.Contains(Statuses, s) }

// Closed reports whether s is final.
func (s Status) Closed() bool { return s == Won || s == Lost }

// CanTransition reports whether from -> to is allowed.
func CanTransition(from, to Status) bool { return slices.Contains(transitions[from], to) }

// Reason is why the cardholder disputes the payment (Stripe's reasons).
type Reason string

// Reasons lists them; General is the default of the sandbox's helper.
var Reasons = []Reason{"general", "fraudulent", "duplicate", "product_not_received", "product_unacceptable",
	"credit_not_processed", "subscription_canceled", "unrecognized"}

// General is the reason when none is given.
const General Reason = "general"

// Valid reports whether r is a known reason.
func (r Reason) Valid() bool { return slices.Contains(Reasons, r) }

// ClosedReason says how a dispute was closed.
type ClosedReason string

const (
	ClosedAccepted ClosedReason = "accepted" // the merchant accepted it: lost at once
	ClosedExpired  ClosedReason = "expired"  // no evidence submitted by due_by: lost
	ClosedReviewed ClosedReason = "reviewed" // the issuer reviewed the evidence: won or lost
)

// Event types a dispute writes (the webhooks catalogue lists them).
const (
	EventCreated = "dispute.created" // opened: needs_response, its amount and fee held
	EventUpdated = "dispute.updated" // evidence added, or submitted (under_review)
	EventClosed  = "dispute.closed"  // won or lost (accepted, expired or reviewed)
)

// EventTypes are every type this package writes.
var EventTypes = []string{EventCreated, EventUpdated, EventClosed}

// Document is one evidence document as the API shows it: its data is
// stored apart (evidence.go) and never returned.
type Document struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	ContentType string    `json:"content_type"`
	Size        int64     `json:"size"`   // bytes, decoded
	SHA256      string    `json:"sha256"` // hex, of the decoded bytes
	CreatedAt   time.Time `json:"created_at"`
}

// Evidence is what the merchant sent so far.
type Evidence struct {
	Description string     `json:"description"`
	Documents   []Document `json:"documents"`
	Size        int64      `json:"size"` // bytes of every document, at most MaxEvidenceSize
}

// Dispute is the Pay API representation of a dispute.
type Dispute struct {
	ID                string            `json:"id"`
	Object            string            `json:"object"`
	TransactionID     string            `json:"transaction_id"`
	MerchantReference string            `json:"merchant_reference"`
	Amount            money.Amount      `json:"amount"` // what the cardholder claims back
	Fee               money.Amount      `json:"fee"`    // the dispute fee, held with the amount, kept if lost
	Status            Status            `json:"status"`
	Reason            Reason            `json:"reason"`
	DueBy             time.Time         `json:"due_by"` // evidence must be submitted by then, else the dispute is lost
	Evidence          Evidence          `json:"evidence"`
	ClosedReason      ClosedReason      `json:"closed_reason,omitempty"`
	Livemode          bool              `json:"livemode"`
	Metadata          map[string]string `json:"metadata"`
	CreatedAt         time.Time         `json:"created_at"`
	UpdatedAt         time.Time         `json:"updated_at"`
	SubmittedAt       *time.Time        `json:"submitted_at,omitempty"`
	ClosedAt          *time.Time        `json:"closed_at,omitempty"`
}

// illegal is the 409 of a change the state machine refuses; the message
// names the current status.
func illegal(r *record, to Status, what string) error {
	if r.Status.Closed() {
		return apierr.New(CodeClosed, "dispute %s is %s: it can no longer be %s", r.ID, r.Status, what)
	}
	return apierr.New(CodeStateConflict, "dispute %s is %s and cannot be %s (it would become %s)", r.ID, r.Status, what, to)
}

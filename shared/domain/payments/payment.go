// Package payments is the payment record shared by the whole Pay API (card
// payments from checkout now; wallet, payment links and payouts later) and its
// state machine.
//
// Decisions:
//   - Fields follow the provider's transaction record (reference/provider-notes.md,
//     "Pay API"): id, amount (minor units), currency, status, type, last4,
//     paymentMethod, merchantReference, createdAt, updatedAt, authedAt,
//     secure3d, paymentSessionId, plus history and metadata.
//   - Statuses are the provider's, with `requires_action` in place of `3d`:
//     version 2024-01-15 introduced the name, so older versions see "3d" (the
//     version change registered in version.go).
//   - Every status change appends to History and queues an event record
//     (payment.authorised, payment.refused, payment.requires_action, ...).
//     Repo.SaveOps turns the record and its queued events into store ops
//     conditioned on the version the caller read, so the change, its history
//     and its event commit in one transaction with whatever else the caller
//     writes (a checkout session, an idempotency record). The money the
//     change moved (a capture, a refund, a split applied) is posted to the
//     merchant's books in those same ops (ledger.go).
//   - Storage: table payments, PK "pay#<account>", SK "<payment id>" (UUIDv7,
//     so one partition lists an account's payments in time order). Events are
//     appended to the event log (shared/domain/eventlog) in the same transaction.
package payments

import (
	"slices"
	"time"

	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// Kind is the resource kind of a payment (a Pay API transaction) for
// version changes; KindHistory is one entry of a transaction's history.
const (
	Kind        = "payment"
	KindHistory = "payment_history"
)

// Status is a payment's state.
type Status string

const (
	Created        Status = "created"         // recorded, not yet sent for authorisation
	RequiresAction Status = "requires_action" // waiting for the shopper (3-D Secure, redirect); "3d" before 2024-01-15
	Authorized     Status = "authorized"      // funds held; counts as success
	Rejected       Status = "rejected"        // refused by the issuer or the processor's rules
	Failed         Status = "failed"          // technical failure, or the flow ended without an answer
	Charged        Status = "charged"         // captured (final debit)
	Cancelled      Status = "cancelled"       // voided before capture, or abandoned by the shopper
	Refunded       Status = "refunded"        // all of the captured amount returned
	// PartiallyRefunded: part of the captured amount returned; more refunds
	// may follow until it is all returned (then Refunded).
	PartiallyRefunded Status = "partially_refunded"
)

// Statuses lists every status, in the order of the life of a payment.
var Statuses = []Status{Created, RequiresAction, Authorized, Rejected, Failed, Charged, Cancelled, PartiallyRefunded, Refunded}

// LegacyRequiresAction is the name versions before 2024-01-15 use.
const LegacyRequiresAction = "3d"

// transitions is the state machine: from -> allowed next states. Final states
// (rejected, failed, cancelled, refunded) have no entry. Charged -> Charged
// is a further partial capture, PartiallyRefunded -> PartiallyRefunded a
// further partial refund: each is a change with its history entry and event.
// Authorized -> Cancelled is a void (cancel, or the 7-day expiry);
// Authorized -> Authorized an amount update of the hold (UpdateAmount).
var transitions = map[Status][]Status{
	Created:           {RequiresAction, Authorized, Rejected, Failed, Cancelled},
	RequiresAction:    {Authorized, Rejected, Failed, Cancelled},
	Authorized:        {Authorized, Charged, Cancelled},
	Charged:           {Charged, PartiallyRefunded, Refunded},
	PartiallyRefunded: {PartiallyRefunded, Refunded},
}

// Valid reports whether s is a known status.
func (s Status) Valid() bool {
	switch s {
	case Created, RequiresAction, Authorized, Rejected, Failed, Charged, Cancelled, PartiallyRefunded, Refunded:
		return true
	}
	return false
}

// Succeeded reports whether a payment in s was authorised: held, captured
// or refunded since (the provider counts authorised as success).
func (s Status) Succeeded() bool {
	switch s {
	case Authorized, Charged, PartiallyRefunded, Refunded:
		return true
	}
	return false
}

// Final reports whether no transition leaves s.
func (s Status) Final() bool { return s.Valid() && len(transitions[s]) == 0 }

// CanTransition reports whether from -> to is allowed.
func CanTransition(from, to Status) bool { return slices.Contains(transitions[from], to) }

// EventType is the event written when a payment enters s.
func EventType(s Status) string {
	switch s {
	case Authorized:
		return "payment.authorised"
	case Rejected:
		return "payment.refused"
	default:
		return "payment." + string(s)
	}
}

// EventTypes lists every event type a payment's changes write: one per
// status a transition enters, and the amount update's own.
func EventTypes() []string {
	var out []string
	for _, from := range Statuses {
		for _, to := range transitions[from] {
			if t := EventType(to); !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return append(out, EventAmountUpdated)
}

// Type separates payments from the records that move money back.
type Type string

const (
	TypePayment  Type = "payment"
	TypeRefund   Type = "refund"
	TypeReversal Type = "reversal"
)

// CaptureMode says what follows an authorisation: automatic (the default
// of every payment API) captures the whole amount in the same write as the
// authorisation; manual holds the funds until the merchant captures or
// cancels, or until the hold expires (AuthorizationTTL).
type CaptureMode string

const (
	CaptureAutomatic CaptureMode = "automatic"
	CaptureManual    CaptureMode = "manual"
)

// CaptureModes lists the modes.
var CaptureModes = []CaptureMode{CaptureAutomatic, CaptureManual}

// Valid reports whether m is a known mode.
func (m CaptureMode) Valid() bool { return m == CaptureAutomatic || m == CaptureManual }

// HistoryEntry is one status change: from From (empty for the first entry)
// to Status, moving Amount (a capture's or a refund's; 0: the payment's
// amount) for Reason, in the request RequestID (empty when no API request
// caused it: the processor's answer in checkout, a scheduled expiry).
// RefundID names a refund's own record; Via names the request that asked for
// the change when it was not a plain capture, cancel or refund (ViaReversal,
// ViaReference): notifications in Adyen's format tell them apart.
type HistoryEntry struct {
	Status    Status    `json:"status"`
	From      Status    `json:"from,omitempty"`
	At        time.Time `json:"at"`
	Reason    string    `json:"reason,omitempty"`
	Amount    int64     `json:"amount,omitempty"`
	RequestID string    `json:"requestId,omitempty"`
	RefundID  string    `json:"refundId,omitempty"`
	Via       Via       `json:"via,omitempty"`
}

// Via is how a change was asked for, when not by its own operation.
type Via string

const (
	// ViaReversal: a reversal, which cancels or refunds whichever applies
	// (Adyen's /reversals; eventCode CANCEL_OR_REFUND).
	ViaReversal Via = "reversal"
	// ViaReference: a cancel naming the merchant reference, not the payment
	// (Adyen's /cancels; eventCode TECHNICAL_CANCEL).
	ViaReference Via = "reference"
)

// Last is the newest history entry in status s, and whether there is one.
func (p *Payment) Last(s Status) (HistoryEntry, bool) {
	for i := len(p.History) - 1; i >= 0; i-- {
		if p.History[i].Status == s {
			return p.History[i], true
		}
	}
	return HistoryEntry{}, false
}

// Flow is the state of the code that drives a payment through its steps
// (checkout's 3-D Secure stages and redirects): stored with the payment,
// never shown (see Public). Records stored when it was a map of strings
// ("internal") read into it as they are: the names are the map's keys.
type Flow struct {
	Stage             string `json:"stage,omitempty"`             // the step the shopper is at (checkout's stages)
	PaymentData       string `json:"paymentData,omitempty"`       // the token sealed for that step
	ReturnURL         string `json:"returnUrl,omitempty"`         // where a redirect returns the shopper
	Processor         string `json:"flow,omitempty"`              // the processor's 3-D Secure flow
	RefusalReasonCode string `json:"refusalReasonCode,omitempty"` // kept for later answers of a refused payment
	KeepCard          string `json:"keepCard,omitempty"`          // checkout's card to save when 3-D Secure ends, as JSON
	Source            string `json:"source,omitempty"`            // the API that took the payment ("direct"), when not checkout
	// Connector is the remote card processor that authorised the payment
	// ("" the sandbox): its captures, cancels and refunds go there, even
	// once the account's configuration changed. ProcessorRef is that
	// processor's pspReference; ProcessorAction (JSON) and ProcessorData
	// are its step for the shopper and what it needs back, while the
	// payment waits.
	Connector       string `json:"connector,omitempty"`
	ProcessorRef    string `json:"processorRef,omitempty"`
	ProcessorAction string `json:"processorAction,omitempty"`
	ProcessorData   string `json:"processorData,omitempty"`
	// ProcessorNotices mark the processor's notifications about the
	// payment that were recorded (shared/pay/processornotices), oldest
	// first, each "eventCode:pspReference:success".
	ProcessorNotices []string `json:"processorNotices,omitempty"`
}

// Waiting reports whether the flow holds a step the shopper is at.
func (f Flow) Waiting() bool { return f.Stage != "" }

// Payment is the record. Flow holds the state of the code that drives the
// payment; it is stored but never shown (see Public).
type Payment struct {
	ID                string `json:"id"`
	AccountID         string `json:"account_id"`
	Livemode          bool   `json:"livemode"`
	Type              Type   `json:"type"`
	Amount            int64  `json:"amount"`
	Currency          string `json:"currency"`
	Status            Status `json:"status"`
	PaymentMethod     string `json:"paymentMethod"` // scheme brand (visa, mc, amex) or wallet (applepay, googlepay)
	Last4             string `json:"last4,omitempty"`
	MerchantReference string `json:"merchantReference"`
	Description       string `json:"description,omitempty"`
	Secure3D          bool   `json:"secure3d"`
	PaymentSessionID  string `json:"paymentSessionId,omitempty"`
	CustomerID        string `json:"customerId,omitempty"`
	// RecurringType is a charge of a saved card's model (subscription,
	// unscheduled, card_on_file: shared/pay/customers); empty otherwise.
	RecurringType string `json:"recurringType,omitempty"`
	// CaptureMode is set when the payment is created; a record stored
	// before modes existed has none and behaves as manual (it stays
	// authorised until captured, cancelled or expired).
	CaptureMode   CaptureMode `json:"captureMode,omitempty"`
	RefusalReason string      `json:"refusalReason,omitempty"`
	CreatedAt     time.Time   `json:"createdAt"`
	UpdatedAt     time.Time   `json:"updatedAt"`
	AuthedAt      *time.Time  `json:"authedAt,omitempty"`
	// Amounts after authorisation (money.go): ProcessedAmount is what was
	// captured, RefundedAmount what was refunded of it; CaptureClosed is set
	// once no further capture may follow (a final capture, the whole amount
	// captured, or a refund), which releases the rest of the hold.
	ProcessedAmount     int64             `json:"processedAmount,omitempty"`
	RefundedAmount      int64             `json:"refundedAmount,omitempty"`
	CaptureClosed       bool              `json:"captureClosed,omitempty"`
	CapturedAt          *time.Time        `json:"capturedAt,omitempty"`
	ParentTransactionID string            `json:"parentTransactionId,omitempty"` // a refund's payment
	CardTokenID         string            `json:"cardTokenId,omitempty"`
	PaymentLinkID       string            `json:"paymentLinkId,omitempty"`
	History             []HistoryEntry    `json:"history"`
	Metadata            map[string]string `json:"metadata"`
	Flow                Flow              `json:"internal,omitzero"`
	// Split is the split request dividing the payment (shared/pay/splits),
	// applied by its captures and reversed by its refunds (ledger.go).
	Split *ledger.Split `json:"split,omitempty"`
	// Dispute is the payment's dispute (shared/pay/disputes), kept up to date
	// in the dispute's own transactions.
	Dispute *DisputeMark `json:"dispute,omitempty"`

	version    int64          // stored version read; 0 for a new record
	readStatus Status         // status when read (or last saved): SaveOps keeps the expiry index by it
	gainedCust bool           // SetCustomer linked a stored record: SaveOps adds it to the customer's index
	pending    []pendingEvent // events queued by Transition, written by SaveOps
	extra      []*Payment     // new records written with this one (a refund's own record)

	read      readMoney     // money fields as read: SaveOps posts what moved since (ledger.go)
	nextSplit *ledger.Split // the split as SaveOps stores it, adopted by Saved
}

// New starts a payment in status created.
func New(p Payment, now time.Time) *Payment {
	now = now.UTC()
	if p.Type == "" {
		p.Type = TypePayment
	}
	if p.Metadata == nil {
		p.Metadata = map[string]string{}
	}
	p.Status = Created
	p.CreatedAt, p.UpdatedAt = now, now
	p.History = []HistoryEntry{{Status: Created, At: now}}
	return &p
}

// Version is the stored version the record was read at (0: not stored).
func (p *Payment) Version() int64 { return p.version }

// Transition moves the payment to `to`, appending history and queueing the
// event. An illegal change is a 409 and leaves the record untouched.
func (p *Payment) Transition(to Status, reason string, now time.Time) error {
	return p.TransitionBecause(to, reason, reason, now)
}

// TransitionBecause is Transition with a refusal reason for the merchant
// (an Adyen refusalReason, shown as refusalReason on rejected and failed
// payments) apart from why, the history's account of the change: a payment
// refused "3D Not Authenticated" because its session expired says both.
func (p *Payment) TransitionBecause(to Status, reason, why string, now time.Time) error {
	if to == Rejected || to == Failed {
		if !CanTransition(p.Status, to) {
			return illegal(p, to)
		}
		p.RefusalReason = reason
	}
	return p.move(to, HistoryEntry{Reason: why}, now)
}

// move is the one place the status changes: it checks the state machine,
// appends the history entry e (its Status, From and At filled in here) and
// queues the event.
func (p *Payment) move(to Status, e HistoryEntry, now time.Time) error {
	return p.moveAs(to, EventType(to), e, now)
}

// moveAs is move with an event type of its own, for a change that keeps the
// status (an amount update is not a second authorisation).
func (p *Payment) moveAs(to Status, eventType string, e HistoryEntry, now time.Time) error {
	if !CanTransition(p.Status, to) {
		return illegal(p, to)
	}
	now = now.UTC()
	if to == Authorized && p.Status != Authorized {
		// The first authorisation starts the hold's clock; an amount
		// update keeps it (and so the expiry index entry's key).
		p.AuthedAt = &now
	}
	e.From, e.Status, e.At = p.Status, to, now
	p.Status, p.UpdatedAt = to, now
	p.History = append(p.History, e)
	p.pending = append(p.pending, pendingEvent{typ: eventType, at: now})
	return nil
}

// illegal is the 409 of a move the state machine refuses; the message names
// the current status.
func illegal(p *Payment, to Status) error {
	return apierr.New(CodeStateConflict, "payment %s is %s and cannot become %s", p.ID, p.Status, to)
}

// DisputeMark is what a payment keeps of its dispute: the dispute's id and
// status (shared/pay/disputes writes it with every change of the dispute's
// status, in the same transaction, conditioned on the payment's version).
// A payment has at most one. While the dispute is open or once it is lost
// the payment cannot be refunded (the cardholder is being, or has been,
// paid back through the card network: a refund would pay twice).
type DisputeMark struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

// DisputeWon is the status of a dispute the merchant won (shared/pay/disputes'
// own name for it): the payment may be refunded again.
const DisputeWon = "won"

// Public is the view shown to merchants: no internal flow state.
func (p *Payment) Public() Payment {
	c := *p
	c.Flow, c.pending, c.extra = Flow{}, nil, nil
	c.Split, c.nextSplit = nil, nil // a split request is its own resource
	return c
}

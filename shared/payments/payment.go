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
//     writes (a checkout session, an idempotency record).
//   - Storage: table payments, PK "pay#<account>", SK "<payment id>" (UUIDv7,
//     so one partition lists an account's payments in time order). Events go
//     to table events, PK "evt#<account>", SK "<event id>", with the
//     {id, type, created, account, data} envelope the webhook pipeline sends.
package payments

import (
	"slices"
	"time"

	"github.com/paygate/paygate/shared/apierr"
)

// Kind is the resource kind of a payment for version changes.
const Kind = "payment"

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
	Refunded       Status = "refunded"        // money returned after capture
)

// LegacyRequiresAction is the name versions before 2024-01-15 use.
const LegacyRequiresAction = "3d"

// transitions is the state machine: from -> allowed next states. Final states
// (rejected, failed, cancelled, refunded) have no entry.
var transitions = map[Status][]Status{
	Created:        {RequiresAction, Authorized, Rejected, Failed, Cancelled},
	RequiresAction: {Authorized, Rejected, Failed, Cancelled},
	Authorized:     {Charged, Cancelled},
	Charged:        {Refunded},
}

// Valid reports whether s is a known status.
func (s Status) Valid() bool {
	switch s {
	case Created, RequiresAction, Authorized, Rejected, Failed, Charged, Cancelled, Refunded:
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

// Type separates payments from the records that move money back.
type Type string

const (
	TypePayment  Type = "payment"
	TypeRefund   Type = "refund"
	TypeReversal Type = "reversal"
)

// HistoryEntry is one status change.
type HistoryEntry struct {
	Status Status    `json:"status"`
	At     time.Time `json:"at"`
	Reason string    `json:"reason,omitempty"`
}

// Payment is the record. Internal holds flow state of the code that drives
// the payment (checkout keeps its 3-D Secure stage there); it is stored but
// never shown (see Public).
type Payment struct {
	ID                string            `json:"id"`
	AccountID         string            `json:"account_id"`
	Livemode          bool              `json:"livemode"`
	Type              Type              `json:"type"`
	Amount            int64             `json:"amount"`
	Currency          string            `json:"currency"`
	Status            Status            `json:"status"`
	PaymentMethod     string            `json:"paymentMethod"` // scheme brand (visa, mc, amex) or wallet (applepay, googlepay)
	Last4             string            `json:"last4,omitempty"`
	MerchantReference string            `json:"merchantReference"`
	Description       string            `json:"description,omitempty"`
	Secure3D          bool              `json:"secure3d"`
	PaymentSessionID  string            `json:"paymentSessionId,omitempty"`
	CustomerID        string            `json:"customerId,omitempty"`
	RefusalReason     string            `json:"refusalReason,omitempty"`
	CreatedAt         time.Time         `json:"createdAt"`
	UpdatedAt         time.Time         `json:"updatedAt"`
	AuthedAt          *time.Time        `json:"authedAt,omitempty"`
	History           []HistoryEntry    `json:"history"`
	Metadata          map[string]string `json:"metadata"`
	Internal          map[string]string `json:"internal,omitempty"`

	version int64   // stored version read; 0 for a new record
	pending []Event // events queued by Transition, written by SaveOps
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
	if !CanTransition(p.Status, to) {
		return apierr.New(apierr.Conflict, "payment_state_conflict",
			"payment %s is %s and cannot become %s", p.ID, p.Status, to)
	}
	now = now.UTC()
	p.Status, p.UpdatedAt = to, now
	if to == Authorized {
		p.AuthedAt = &now
	}
	if to == Rejected || to == Failed {
		p.RefusalReason = reason
	}
	p.History = append(p.History, HistoryEntry{Status: to, At: now, Reason: why})
	p.pending = append(p.pending, Event{Type: EventType(to), Account: p.AccountID, Created: now.Unix()})
	return nil
}

// Public is the view shown to merchants: no internal flow state.
func (p *Payment) Public() Payment {
	c := *p
	c.Internal, c.pending = nil, nil
	return c
}

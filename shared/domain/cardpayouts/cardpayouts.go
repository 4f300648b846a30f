// Package cardpayouts is the payout processor's port: what the balance area
// needs of the system that pushes money to a card (a card network's
// push-to-card service behind an acquirer). The sandbox processor
// (shared/sandbox/payoutprocessor) is one adapter, chosen by the wiring for
// test keys; a live connection is another (domain/connectors decides).
package cardpayouts

import (
	"context"

	"github.com/paygate/paygate/shared/domain/remittance/payanswer"
)

// Reference is the processor's own reference of a saved card, kept with the
// card and copied to each payout so later payouts reach the same card
// without the service keeping its number (the sandbox keeps the outcome its
// test card documents).
type Reference = string

// Request is what the processor is asked to pay. PayoutID is the
// processor's idempotency key: asked twice, it pays once and answers the
// same.
type Request struct {
	PayoutID string
	Amount   int64
	Currency string
	Livemode bool
	Card     Reference
}

// Result is the processor's final answer (payanswer's).
type Result = payanswer.Result

// ErrNoAnswer is a call whose outcome is unknown (a timeout): the payout
// may or may not have been paid (payanswer.ErrNoAnswer, which the remittance flow tells).
var ErrNoAnswer = payanswer.ErrNoAnswer

// Failure reasons a processor answers (a payout's failure_reason).
const (
	ReasonInsufficientFunds = "insufficient_funds" // the card's issuer refused the credit
	ReasonExpiredCard       = "expired_card"
	ReasonDeclined          = "card_declined"
	ReasonUnavailable       = "payouts_unavailable"
)

// RecordPrefix is where a processor that keeps its records in the service's
// own store (the sandbox) keeps them: the ledger table, one item per payout.
const RecordPrefix = "sbxpo#"

// Processor pays payouts to cards.
type Processor interface {
	// Enrol is the reference of a card number the processor pays to, kept
	// with the saved card (the number is not kept).
	Enrol(number string) Reference
	// Pay pays the request once per PayoutID; a repeat answers the first
	// answer. ErrNoAnswer when the outcome is unknown.
	Pay(ctx context.Context, r Request) (Result, error)
	// Lookup is the processor's record of a payout: found is false when it
	// never paid nor refused it.
	Lookup(ctx context.Context, payoutID string) (res Result, found bool, err error)
}

// Package payanswer is what a payer (the payout processor, the bank)
// answers a remittance: its own leaf, so the ports of those systems
// (domain/cardpayouts, domain/banking) name it without the remittance flow
// and its queue consumer.
package payanswer

import (
	"errors"
	"time"
)

// Result is the payer's final answer.
type Result struct {
	Paid   bool      `json:"paid"`
	Reason string    `json:"reason,omitempty"` // a refusal's failure reason
	At     time.Time `json:"at"`
}

// ErrNoAnswer is a payer's call whose outcome is unknown (a timeout): the
// remittance may or may not have been paid, so it stays open until the
// payer answers or, asked for it (Lookup), says what became of it.
var ErrNoAnswer = errors.New("the payer did not answer")

// ErrInProcess is a payer's "accepted, still paying": ask again later.
var ErrInProcess = errors.New("the payer is still paying")

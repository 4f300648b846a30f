package balance

import "github.com/paygate/paygate/shared/domain/cardpayouts"

// The payout processor is a port (domain/cardpayouts); the wiring chooses
// its adapter (the sandbox for test keys).
type (
	// Processor pays payouts to cards.
	Processor = cardpayouts.Processor
	// PayRequest is what the processor is asked to pay.
	PayRequest = cardpayouts.Request
	// PayResult is the processor's final answer (a remittance's).
	PayResult = cardpayouts.Result
)

// ErrNoAnswer is a call whose outcome is unknown (a timeout): the payout
// may or may not have been paid, so it stays pending until the processor
// answers or, asked for it (Lookup), says what became of it.
var ErrNoAnswer = cardpayouts.ErrNoAnswer

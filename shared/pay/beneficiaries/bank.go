package beneficiaries

import "github.com/paygate/paygate/shared/domain/banking"

// The bank is a port (domain/banking); the wiring chooses its adapter (the
// sandbox for test keys).
type (
	// Bank pays payment orders to Kazakh bank accounts.
	Bank = banking.Bank
	// BankRequest is what the bank is asked to pay.
	BankRequest = banking.Request
	// BankResult is the bank's final answer (a remittance's).
	BankResult = banking.Result
)

// Failure reasons of a payment order (failure_reason).
const (
	ReasonAccountClosed       = banking.ReasonAccountClosed
	ReasonBeneficiaryMismatch = banking.ReasonBeneficiaryMismatch
	ReasonBankTimeout         = "bank_timeout" // the bank never answered and has no record of the order
	ReasonBankUnavailable     = banking.ReasonBankUnavailable
)

// FailureReasons lists every reason (the OpenAPI enum).
var FailureReasons = []string{ReasonAccountClosed, ReasonBeneficiaryMismatch, ReasonBankTimeout, ReasonBankUnavailable}

// ErrNoAnswer is a call whose outcome is unknown (a timeout): the order may
// or may not have been paid, so it stays created until the bank answers or,
// asked for it (Lookup), says what became of it. It is the remittance
// flow's (remittance.ErrNoAnswer), which the consumer tells.
var ErrNoAnswer = banking.ErrNoAnswer

// ErrInProcess is the bank's "accepted, still paying": ask again later
// (remittance.ErrInProcess).
var ErrInProcess = banking.ErrInProcess

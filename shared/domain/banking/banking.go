// Package banking is the bank's port: what the beneficiaries area needs of
// the bank that pays payment orders to Kazakh bank accounts (the interbank
// transfer systems behind a partner bank). The sandbox bank
// (shared/sandbox/bank) is one adapter, chosen by the wiring for test keys;
// a live connection is another (domain/connectors decides).
package banking

import (
	"context"

	"github.com/paygate/paygate/shared/domain/remittance/payanswer"
)

// Request is what the bank is asked to pay. PaymentOrderID is the bank's
// idempotency key: asked twice, it pays once and answers the same.
type Request struct {
	PaymentOrderID string
	Amount         int64
	Currency       string
	IBAN           string
	BIC            string
	Livemode       bool
}

// Result is the bank's final answer (payanswer's).
type Result = payanswer.Result

// Failure reasons a bank answers (a payment order's failure_reason).
const (
	ReasonAccountClosed       = "account_closed"       // the beneficiary's bank account is closed
	ReasonBeneficiaryMismatch = "beneficiary_mismatch" // the account's holder is not the beneficiary's IIN or BIN
	ReasonBankUnavailable     = "bank_unavailable"     // no live bank is wired
)

// ErrNoAnswer is a call whose outcome is unknown (a timeout): the order may
// or may not have been paid (payanswer.ErrNoAnswer, which the remittance flow tells).
var ErrNoAnswer = payanswer.ErrNoAnswer

// ErrInProcess is the bank's "accepted, still paying": ask again later
// (payanswer.ErrInProcess).
var ErrInProcess = payanswer.ErrInProcess

// RecordPrefix is where a bank that keeps its records in the service's own
// store (the sandbox) keeps them: the ledger table, one item per order.
const RecordPrefix = "sbxbank#"

// Bank pays payment orders.
type Bank interface {
	// Pay pays the request once per PaymentOrderID; a repeat answers the
	// first answer. ErrInProcess while the bank is still paying it,
	// ErrNoAnswer when the outcome is unknown.
	Pay(ctx context.Context, r Request) (Result, error)
	// Lookup is the bank's record of an order: found is false when it never
	// decided it.
	Lookup(ctx context.Context, paymentOrderID string) (res Result, found bool, err error)
}

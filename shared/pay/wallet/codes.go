package wallet

import "github.com/paygate/paygate/shared/platform/apierr"

// The wallet's codes.
var (
	CodeTransactionState = apierr.Register(apierr.CodeInfo{Name: "wallet_transaction_state", Kind: apierr.Conflict,
		Meaning: "The wallet transaction's status does not allow this move (the message names both statuses)."})
	CodeAmountExceedsAuthorized = apierr.Register(apierr.CodeInfo{Name: "amount_exceeds_authorized", Kind: apierr.Invalid, Param: "amount",
		Meaning: "The capture's amount is more than the authorised amount."})
	CodeRefundExceedsCaptured = apierr.Register(apierr.CodeInfo{Name: "refund_exceeds_captured", Kind: apierr.Invalid, Param: "amount",
		Meaning: "The refund's amount is more than what is left of the captured amount."})
)

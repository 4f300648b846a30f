package payments

import "github.com/paygate/paygate/shared/platform/apierr"

// The codes of every area that changes payments (checkout, direct payments,
// recurring charges, modifications, splits, disputes).
var (
	CodeStateConflict = apierr.Register(apierr.CodeInfo{Name: "payment_state_conflict", Kind: apierr.Conflict,
		Meaning: "The payment's status does not allow this operation (capture of a refused payment, refund of one not captured); the message names the status."})
	CodeChanged = apierr.Register(apierr.CodeInfo{Name: "payment_changed", Kind: apierr.Conflict,
		Meaning: "The payment changed concurrently and could not be recorded; retry with the same Idempotency-Key."})
	CodeDisputed = apierr.Register(apierr.CodeInfo{Name: "payment_disputed", Kind: apierr.Conflict,
		Meaning: "The payment is disputed (or the dispute was lost): the cardholder is paid back through the dispute, so it cannot be refunded."})
	CodeAmountExceedsCapturable = apierr.Register(apierr.CodeInfo{Name: "amount_exceeds_capturable", Kind: apierr.Invalid, Param: "amount",
		Meaning: "The capture's amount is more than the authorised amount not yet captured."})
	CodeRefundExceedsBalance = apierr.Register(apierr.CodeInfo{Name: "refund_exceeds_balance", Kind: apierr.Invalid, Param: "amount",
		Meaning: "The refund's amount is more than the captured amount not yet refunded."})
)

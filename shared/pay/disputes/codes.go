package disputes

import "github.com/paygate/paygate/shared/platform/apierr"

// The disputes' codes.
var (
	CodeClosed = apierr.Register(apierr.CodeInfo{Name: "dispute_closed", Kind: apierr.Conflict,
		Meaning: "The dispute is closed (won or lost); it takes no more evidence or answers."})
	CodeStateConflict = apierr.Register(apierr.CodeInfo{Name: "dispute_state_conflict", Kind: apierr.Conflict,
		Meaning: "The dispute's status does not allow this (the message names it)."})
	CodeExpired = apierr.Register(apierr.CodeInfo{Name: "dispute_expired", Kind: apierr.Conflict,
		Meaning: "The dispute's due_by passed without evidence: it is lost."})
	CodeExists = apierr.Register(apierr.CodeInfo{Name: "dispute_exists", Kind: apierr.Conflict,
		Meaning: "The payment already has a dispute (a payment has one)."})
	CodeTransactionNotDisputable = apierr.Register(apierr.CodeInfo{Name: "transaction_not_disputable", Kind: apierr.Conflict,
		Meaning: "Only a payment can be disputed, not a refund."})
	CodePaymentRefunded = apierr.Register(apierr.CodeInfo{Name: "payment_refunded", Kind: apierr.Conflict,
		Meaning: "The payment is refunded in full: nothing is left to dispute."})
	CodePaymentNotCaptured = apierr.Register(apierr.CodeInfo{Name: "payment_not_captured", Kind: apierr.Conflict,
		Meaning: "Only a captured payment can be disputed."})
	CodeExceedsBalance = apierr.Register(apierr.CodeInfo{Name: "dispute_exceeds_balance", Kind: apierr.Invalid, Param: "amount",
		Meaning: "The disputed amount is more than what is left of the payment (captured, not refunded)."})
	CodeEvidenceMissing = apierr.Register(apierr.CodeInfo{Name: "evidence_missing", Kind: apierr.Invalid,
		Meaning: "The dispute has no evidence to submit, or the request adds none: send a description, documents or metadata."})
	CodeTooManyDocuments = apierr.Register(apierr.CodeInfo{Name: "too_many_documents", Kind: apierr.Invalid, Param: "documents",
		Meaning: "The evidence would hold more documents than a dispute takes."})
	CodeEvidenceTooLarge = apierr.Register(apierr.CodeInfo{Name: "evidence_too_large", Kind: apierr.TooLarge, Param: "documents",
		Meaning: "The evidence would be larger than a dispute takes."})
)

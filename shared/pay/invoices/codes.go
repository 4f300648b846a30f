package invoices

import "github.com/paygate/paygate/shared/platform/apierr"

// The invoices' codes.
var (
	CodeAlreadyPaid = apierr.Register(apierr.CodeInfo{Name: "invoice_already_paid", Kind: apierr.Conflict,
		Meaning: "The invoice is paid; it cannot be paid again or cancelled."})
	CodeExpired = apierr.Register(apierr.CodeInfo{Name: "invoice_expired", Kind: apierr.Conflict,
		Meaning: "The invoice's expires_at passed unpaid; it can no longer be paid or cancelled."})
	CodeCancelled = apierr.Register(apierr.CodeInfo{Name: "invoice_cancelled", Kind: apierr.Conflict,
		Meaning: "The invoice was cancelled; it can no longer be paid."})
	CodeLineItemsTotalMismatch = apierr.Register(apierr.CodeInfo{Name: "line_items_total_mismatch", Kind: apierr.Invalid, Param: "line_items",
		Meaning: "The line items do not add up to amount.value."})
	// CodeMerchantBalanceLimit was balance_limit_exceeded, which the Gate
	// balance's deposits answer as a 400: one name, one kind.
	CodeMerchantBalanceLimit = apierr.Register(apierr.CodeInfo{Name: "merchant_balance_limit_exceeded", Kind: apierr.Conflict,
		Meaning: "The invoice's payment would take the merchant's balance past its maximum; nothing was paid."})
)

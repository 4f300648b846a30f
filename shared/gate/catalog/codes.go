package catalog

import "github.com/paygate/paygate/shared/platform/apierr"

// The catalog's codes (a range product's amount).
var (
	CodeAmountOutOfRange = apierr.Register(apierr.CodeInfo{Name: "amount_out_of_range", Kind: apierr.Invalid,
		Meaning: "The amount is outside the product's range (min_amount to max_amount)."})
	CodeAmountOffStep = apierr.Register(apierr.CodeInfo{Name: "amount_off_step", Kind: apierr.Invalid,
		Meaning: "The amount is not min_amount plus a multiple of the product's step."})
)

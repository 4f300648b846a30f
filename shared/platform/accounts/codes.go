package accounts

import "github.com/paygate/paygate/shared/platform/apierr"

// The accounts' codes.
var (
	CodeMerchantAccountTaken = apierr.Register(apierr.CodeInfo{Name: "merchant_account_taken", Kind: apierr.Conflict,
		Meaning: "Another account has this merchant account name."})
	CodeModeMismatch = apierr.Register(apierr.CodeInfo{Name: "mode_mismatch", Kind: apierr.Invalid,
		Meaning: "Pairing takes a live account and a test account."})
	CodePaired = apierr.Register(apierr.CodeInfo{Name: "account_paired", Kind: apierr.Conflict,
		Meaning: "The account is paired to another account already."})
)

package transactions

import "github.com/paygate/paygate/shared/platform/apierr"

// CodeCurrencyMismatch is the answer when an operation names a currency
// other than its transaction's.
var CodeCurrencyMismatch = apierr.Register(apierr.CodeInfo{Name: "currency_mismatch", Kind: apierr.Invalid, Param: "currency",
	Meaning: "The currency is not the transaction's: an operation's amount is in its transaction's minor units."})

package prepaid

import "github.com/paygate/paygate/shared/platform/apierr"

// CodeBalanceLimitExceeded is the answer to a deposit the Gate balance
// cannot take: it would pass money.MaxBalance.
var CodeBalanceLimitExceeded = apierr.Register(apierr.CodeInfo{Name: "balance_limit_exceeded", Kind: apierr.Invalid, Param: "amount",
	Meaning: "The deposit would take the Gate balance above its maximum; nothing was credited."})

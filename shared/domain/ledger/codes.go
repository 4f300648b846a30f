package ledger

import "github.com/paygate/paygate/shared/platform/apierr"

// CodeSplitExceedsPayment is the answer when a split's parts take more than
// the payment they divide (the ledger's rule, which payments applies too).
var CodeSplitExceedsPayment = apierr.Register(apierr.CodeInfo{Name: "split_exceeds_payment", Kind: apierr.Invalid,
	Meaning: "The split's parts add up to more than the payment's amount; param names the parts."})

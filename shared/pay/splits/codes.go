package splits

import "github.com/paygate/paygate/shared/platform/apierr"

// The split requests' codes.
var (
	CodeExists = apierr.Register(apierr.CodeInfo{Name: "split_request_exists", Kind: apierr.Conflict,
		Meaning: "The payment already has a split request: change or delete it."})
	CodeApplied = apierr.Register(apierr.CodeInfo{Name: "split_request_applied", Kind: apierr.Conflict,
		Meaning: "A capture applied the split request: it can no longer change."})
	CodePaymentAlreadyCaptured = apierr.Register(apierr.CodeInfo{Name: "payment_already_captured", Kind: apierr.Conflict,
		Meaning: "The payment was captured (in part): a split applies at the first capture, so it must be created before."})
	CodeAmbiguousOrderReference = apierr.Register(apierr.CodeInfo{Name: "ambiguous_order_reference", Kind: apierr.Conflict, Param: "order_reference",
		Meaning: "More than one payment of the order reference awaits capture: name one by transaction_id."})
)

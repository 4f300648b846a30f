package balance

import "github.com/paygate/paygate/shared/apierr"

// The payouts' codes. The payout card checks once answered invalid_number,
// card_not_supported and expired_card (invalid_request_error); those names
// are the card payments' codes (shared/checkout/processor, card_error), so
// a payout card's are named for it.
var (
	CodeLivePayoutsUnavailable = apierr.Register(apierr.CodeInfo{Name: "live_payouts_unavailable", Kind: apierr.Forbidden,
		Meaning: "No live payout processor is configured: payout cards can be saved with test keys only."})
	CodeCardNumberInvalid = apierr.Register(apierr.CodeInfo{Name: "payout_card_number_invalid", Kind: apierr.Invalid, Param: "number",
		Meaning: "The payout card's number fails its check digit (Luhn)."})
	CodeCardNotSupported = apierr.Register(apierr.CodeInfo{Name: "payout_card_not_supported", Kind: apierr.Invalid, Param: "number",
		Meaning: "Payouts go to visa and mc cards only."})
	CodeCardExpired = apierr.Register(apierr.CodeInfo{Name: "payout_card_expired", Kind: apierr.Invalid, Param: "expiry_year",
		Meaning: "The payout card's expiry month has passed."})
)

package balance

import "github.com/paygate/paygate/shared/platform/apierr"

// The payouts' codes. A payout card's checks answer the card checks' codes
// (checkout/processor: invalid_number, card_not_supported, expired_card, of
// type card_error).
var (
	CodeLivePayoutsUnavailable = apierr.Register(apierr.CodeInfo{Name: "live_payouts_unavailable", Kind: apierr.Forbidden,
		Meaning: "No live payout processor is configured: payout cards can be saved with test keys only."})
)

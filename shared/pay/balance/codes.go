package balance

import "github.com/paygate/paygate/shared/platform/apierr"

// The payouts' own code. A payout card's checks answer the card checks'
// codes (domain/cards: invalid_number, card_not_supported, expired_card, of
// type card_error), and a live key the one live_mode_unavailable
// (domain/connectors).
var (
	CodeNotPending = apierr.Register(apierr.CodeInfo{Name: "payout_not_pending", Kind: apierr.Conflict,
		Meaning: "The payout is not pending (in_transit, paid, failed or cancelled): only a payout not yet sent to the payout processor can be cancelled."})
)

package balance

// The payouts register no codes of their own: a payout card's checks answer
// the card checks' codes (domain/cards: invalid_number,
// card_not_supported, expired_card, of type card_error), and a live key the
// one live_mode_unavailable (domain/connectors).

package cards

import "github.com/paygate/paygate/shared/platform/apierr"

// The card checks' codes (type card_error), which card payments, payout
// cards and wallet tokens answer alike; param names the card's field.
var (
	CodeInvalidNumber = apierr.Register(apierr.CodeInfo{Name: "invalid_number", Kind: apierr.CardDeclined,
		Meaning: "The card number is not a valid card number (its check digit fails)."})
	CodeCardNotSupported = apierr.Register(apierr.CodeInfo{Name: "card_not_supported", Kind: apierr.CardDeclined,
		Meaning: "The card's brand is not one this operation takes."})
	CodeExpiredCard = apierr.Register(apierr.CodeInfo{Name: "expired_card", Kind: apierr.CardDeclined,
		Meaning: "The card has expired."})
	CodeInvalidCVC = apierr.Register(apierr.CodeInfo{Name: "invalid_cvc", Kind: apierr.CardDeclined, Param: "cvc",
		Meaning: "The security code has the wrong number of digits for the card's brand."})
	CodeInvalidExpiryMonth = apierr.Register(apierr.CodeInfo{Name: "invalid_expiry_month", Kind: apierr.CardDeclined,
		Meaning: "The expiry month is not 01 to 12."})
	CodeInvalidExpiryYear = apierr.Register(apierr.CodeInfo{Name: "invalid_expiry_year", Kind: apierr.CardDeclined,
		Meaning: "The expiry year is malformed or too far ahead."})
	// CodeInvalidWalletToken is the processor's answer to a wallet token it
	// cannot read; the caller names the field.
	CodeInvalidWalletToken = apierr.Register(apierr.CodeInfo{Name: "invalid_wallet_token", Kind: apierr.Invalid,
		Meaning: "The Apple Pay or Google Pay token is not one the processor takes (the sandbox's: test_<wallet>_authorised or test_<wallet>_refused)."})
)

package direct

import (
	"github.com/paygate/paygate/shared/pay/checkout"
)

// The direct payments' codes (and the payment tokens' the wallets decode).
var (
	// CodeEncryptedCardInvalid is checkout's: one code for a card JWE that
	// does not open, on either route.
	CodeEncryptedCardInvalid = checkout.CodeEncryptedCardInvalid
)

package direct

import (
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// The direct payments' codes (and the payment tokens' the wallets decode).
var (
	// CodeEncryptedCardInvalid is checkout's: one code for a card JWE that
	// does not open, on either route.
	CodeEncryptedCardInvalid = checkout.CodeEncryptedCardInvalid
	CodePaymentTokenExpired  = apierr.Register(apierr.CodeInfo{Name: "payment_token_expired", Kind: apierr.Invalid,
		Meaning: "The payment token expired: decode the wallet token again."})
	CodePaymentTokenUsed = apierr.Register(apierr.CodeInfo{Name: "payment_token_used", Kind: apierr.Conflict, Param: "payment_token_id",
		Meaning: "The payment token paid already: a token pays once."})
	CodeWalletTransactionClaimed = apierr.Register(apierr.CodeInfo{Name: "wallet_transaction_claimed", Kind: apierr.Conflict,
		Meaning: "Another merchant of the platform decoded this wallet transaction first: a wallet transaction pays once."})
)

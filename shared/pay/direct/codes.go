package direct

import "github.com/paygate/paygate/shared/platform/apierr"

// The direct payments' codes (and the payment tokens' the wallets decode).
var (
	CodeEncryptedCardInvalid = apierr.Register(apierr.CodeInfo{Name: "encrypted_card_invalid", Kind: apierr.Invalid,
		Meaning: "The encrypted card is not a JWE this account's client-side encryption key opens, or its fields are malformed; param names the field."})
	CodePaymentTokenExpired = apierr.Register(apierr.CodeInfo{Name: "payment_token_expired", Kind: apierr.Invalid,
		Meaning: "The payment token expired: decode the wallet token again."})
	CodePaymentTokenUsed = apierr.Register(apierr.CodeInfo{Name: "payment_token_used", Kind: apierr.Conflict, Param: "payment_token_id",
		Meaning: "The payment token paid already: a token pays once."})
	CodeWalletTransactionClaimed = apierr.Register(apierr.CodeInfo{Name: "wallet_transaction_claimed", Kind: apierr.Conflict,
		Meaning: "Another merchant of the platform decoded this wallet transaction first: a wallet transaction pays once."})
)

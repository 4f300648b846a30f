package walletpay

import "github.com/paygate/paygate/shared/platform/apierr"

// The wallets' codes.
var (
	CodeApplePayTokenInvalid = apierr.Register(apierr.CodeInfo{Name: "applepay_token_invalid", Kind: apierr.Invalid, Param: "token",
		Meaning: "The Apple Pay token failed a check (signature, signing time, merchant, decryption); the message says which."})
	CodeGooglePayTokenInvalid = apierr.Register(apierr.CodeInfo{Name: "googlepay_token_invalid", Kind: apierr.Invalid, Param: "token",
		Meaning: "The Google Pay token failed a check (signatures, expiry, merchant, decryption); the message says which."})
	CodeValidationURLNotAllowed = apierr.Register(apierr.CodeInfo{Name: "validation_url_not_allowed", Kind: apierr.Invalid, Param: "validation_url",
		Meaning: "The validation URL is not one of Apple's merchant validation hosts."})
	CodeApplePaySessionRefused = apierr.Register(apierr.CodeInfo{Name: "apple_pay_session_refused", Kind: apierr.Invalid, Param: "domain_name",
		Meaning: "Apple refused the merchant session (the domain is not registered for the merchant identity)."})
)

package checkout

import "github.com/paygate/paygate/shared/platform/apierr"

// The checkout's codes (the Adyen Checkout face's; the body is this
// service's error body, in the version the caller asks for).
var (
	CodeSessionExpired = apierr.Register(apierr.CodeInfo{Name: "session_expired", Kind: apierr.Conflict,
		Meaning: "The checkout session's expiresAt passed: it takes no more payments."})
	CodeSessionCompleted = apierr.Register(apierr.CodeInfo{Name: "session_completed", Kind: apierr.Conflict,
		Meaning: "A payment completed the checkout session: it takes no more payments."})
	CodeSessionRefused = apierr.Register(apierr.CodeInfo{Name: "session_refused", Kind: apierr.Conflict,
		Meaning: "The checkout session ended after too many refused payments: create a new one."})
	CodeSessionCanceled = apierr.Register(apierr.CodeInfo{Name: "session_canceled", Kind: apierr.Conflict,
		Meaning: "The shopper canceled the checkout session: it takes no more payments."})
	CodeSessionDataInvalid = apierr.Register(apierr.CodeInfo{Name: "session_data_invalid", Kind: apierr.Invalid, Param: "sessionData",
		Meaning: "sessionData is not one this service issued: pass the sessionData returned with the session, unchanged."})
	CodeSessionDataMismatch = apierr.Register(apierr.CodeInfo{Name: "session_data_mismatch", Kind: apierr.Invalid, Param: "sessionData",
		Meaning: "sessionData belongs to another session."})
	CodeCaptureModeFixed = apierr.Register(apierr.CodeInfo{Name: "capture_mode_fixed", Kind: apierr.Invalid,
		Meaning: "The payment asks for another capture mode than its session's: a session's payments all capture alike."})
	CodePersonalData = apierr.Register(apierr.CodeInfo{Name: "personal_data", Kind: apierr.Invalid,
		Meaning: "The field must not hold personal data such as an e-mail address (it travels in URLs and logs)."})
	CodePaymentDataInvalid = apierr.Register(apierr.CodeInfo{Name: "payment_data_invalid", Kind: apierr.Invalid,
		Meaning: "paymentData (or the details' token) is not one issued for this account's payment, or belongs to another session."})
	CodePaymentSuperseded = apierr.Register(apierr.CodeInfo{Name: "payment_superseded", Kind: apierr.Conflict,
		Meaning: "A newer payment attempt replaced this payment on its session: submit the details of the newer one."})
	CodePaymentLinkSession = apierr.Register(apierr.CodeInfo{Name: "payment_link_session", Kind: apierr.Conflict,
		Meaning: "The session belongs to a payment link: it is paid only from the link's page."})
	CodeEncryptedDataUnsupported = apierr.Register(apierr.CodeInfo{Name: "encrypted_data_unsupported", Kind: apierr.Invalid,
		Meaning: "Encrypted card fields are not taken on this route: send them to /v1/payments/direct, or send the card fields as the Drop-in does."})
	CodeTestDataInLiveMode = apierr.Register(apierr.CodeInfo{Name: "test_data_in_live_mode", Kind: apierr.Invalid, Param: "paymentMethod",
		Meaning: "Raw card numbers and test_ tokens are taken only with test-mode keys."})
	CodeAmountMismatch = apierr.Register(apierr.CodeInfo{Name: "amount_mismatch", Kind: apierr.Invalid, Param: "amount",
		Meaning: "The payment's amount is not its session's."})
	CodeReferenceMismatch = apierr.Register(apierr.CodeInfo{Name: "reference_mismatch", Kind: apierr.Invalid, Param: "reference",
		Meaning: "The payment's reference is not its session's."})
	CodeShopperReferenceMismatch = apierr.Register(apierr.CodeInfo{Name: "shopper_reference_mismatch", Kind: apierr.Invalid, Param: "shopperReference",
		Meaning: "The payment's shopperReference is not its session's."})
	CodeNoChallengePending = apierr.Register(apierr.CodeInfo{Name: "no_challenge_pending", Kind: apierr.Conflict,
		Meaning: "The payment is not waiting for a 3-D Secure challenge."})
	CodeStoredMethodUnknown = apierr.Register(apierr.CodeInfo{Name: "stored_method_unknown", Kind: apierr.Invalid,
		Meaning: "No stored payment method of this id for the shopperReference."})
)

// endedCodes are the codes of the statuses that take no more payments.
var endedCodes = map[Status]apierr.Code{StatusCompleted: CodeSessionCompleted, StatusRefused: CodeSessionRefused,
	StatusCanceled: CodeSessionCanceled, StatusExpired: CodeSessionExpired}

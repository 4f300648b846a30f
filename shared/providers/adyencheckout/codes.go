package adyencheckout

import "github.com/paygate/paygate/shared/platform/apierr"

// The connector's answers beyond Unavailable: what Adyen refused, and what
// the connector cannot send.
var (
	CodeRequestRefused = apierr.Register(apierr.CodeInfo{Name: "connector_request_refused", Kind: apierr.Invalid,
		Meaning: "The account's card connector (Adyen) refused the request as invalid (a 4xx answer); the message is the provider's. Nothing was authorised or changed there."})
	CodeUnauthorized = apierr.Register(apierr.CodeInfo{Name: "connector_unauthorized", Kind: apierr.Forbidden,
		Meaning: "The account's card connector (Adyen) refused the connector's credentials (401 or 403): its API key or merchant account needs fixing."})
	CodeOutcomePending = apierr.Register(apierr.CodeInfo{Name: "connector_outcome_pending", Kind: apierr.Conflict,
		Meaning: "The account's card connector (Adyen) received the payment but has not decided it (resultCode Received or Pending); its outcome follows by notification. Nothing was recorded here."})
	CodeMethodUnsupported = apierr.Register(apierr.CodeInfo{Name: "connector_method_unsupported", Kind: apierr.Invalid,
		Meaning: "The account's card connector cannot send this payment method (a wallet's network token with its cryptogram, a wallet other than Apple Pay or Google Pay)."})
)

package processornotices

import "github.com/paygate/paygate/shared/platform/apierr"

// The processor notices' codes.
var (
	CodeUnknownConnector = apierr.Register(apierr.CodeInfo{Name: "unknown_connector", Kind: apierr.NotFound,
		Meaning: "No connector has the id in the notification URL: check the URL configured at the processor."})
	CodeInvalidHMAC = apierr.Register(apierr.CodeInfo{Name: "invalid_hmac_signature", Kind: apierr.Unauthenticated,
		Meaning: "A notification item has no additionalData.hmacSignature, or one the connector's HMAC key does not give: nothing was recorded."})
	CodeInvalidNotification = apierr.Register(apierr.CodeInfo{Name: "invalid_notification", Kind: apierr.Invalid,
		Meaning: "The body is not a notification request of the processor (the message names what is wrong): nothing was recorded."})
)

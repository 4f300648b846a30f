package webhooks

import "github.com/paygate/paygate/shared/platform/apierr"

// The webhooks' codes.
var (
	CodeURLInvalid = apierr.Register(apierr.CodeInfo{Name: "url_invalid", Kind: apierr.Invalid, Param: "url",
		Meaning: "The endpoint URL is refused: not https (test endpoints may use http://localhost), or it resolves to a private address."})
	CodeEventTypeUnknown = apierr.Register(apierr.CodeInfo{Name: "event_type_unknown", Kind: apierr.Invalid,
		Meaning: "The event type is not in the catalogue; the message lists the known types."})
	CodeEventTypeNotInFormat = apierr.Register(apierr.CodeInfo{Name: "event_type_not_in_format", Kind: apierr.Invalid, Param: "enabled_events",
		Meaning: "The event type has no notification in the endpoint's format: an adyen-format endpoint takes payment and dispute events only (the message lists them)."})
	CodeEndpointLimit = apierr.Register(apierr.CodeInfo{Name: "webhook_endpoint_limit", Kind: apierr.Invalid,
		Meaning: "The account holds as many webhook endpoints as it may: delete one first."})
	CodeEndpointChanged = apierr.Register(apierr.CodeInfo{Name: "webhook_endpoint_changed", Kind: apierr.Conflict,
		Meaning: "The webhook endpoint changed concurrently; read it and retry."})
	CodeEndpointDisabled = apierr.Register(apierr.CodeInfo{Name: "webhook_endpoint_disabled", Kind: apierr.Invalid, Param: "endpoint_id",
		Meaning: "The webhook endpoint is disabled: enable it before sending it an event."})
	CodeEndpointMode = apierr.Register(apierr.CodeInfo{Name: "webhook_endpoint_mode", Kind: apierr.Invalid, Param: "endpoint_id",
		Meaning: "The webhook endpoint is of the other mode (live or test) than the event."})
)

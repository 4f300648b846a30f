package httpapi

import "github.com/paygate/paygate/shared/platform/apierr"

// The codes the HTTP platform answers before any area sees a request.
var (
	CodeBodyMissing = apierr.Register(apierr.CodeInfo{Name: "body_missing", Kind: apierr.Invalid,
		Meaning: "The operation takes a JSON body and none was sent."})
	CodeBodyInvalid = apierr.Register(apierr.CodeInfo{Name: "body_invalid", Kind: apierr.Invalid,
		Meaning: "The body is not one JSON object (malformed, truncated, null, or followed by more data)."})
	CodeBodyUnreadable = apierr.Register(apierr.CodeInfo{Name: "body_unreadable", Kind: apierr.Invalid,
		Meaning: "The request body could not be read (the connection broke or stalled while sending it)."})
	CodeRouteNotFound = apierr.Register(apierr.CodeInfo{Name: "route_not_found", Kind: apierr.NotFound,
		Meaning: "No operation has this path."})
	CodeVersionUnsupported = apierr.Register(apierr.CodeInfo{Name: "version_unsupported", Kind: apierr.Invalid, Param: "Service-Version",
		Meaning: "The Service-Version is not one the API knows, or is older than the operation; the message lists what to send."})
	CodeWrongKeyKind = apierr.Register(apierr.CodeInfo{Name: "wrong_key_kind", Kind: apierr.Unauthenticated,
		Meaning: "The operation takes the other kind of key: a secret key (sk_) on the server, a client key (ck_) in a browser."})
	CodeConflictingAPIKeys = apierr.Register(apierr.CodeInfo{Name: "conflicting_api_keys", Kind: apierr.Invalid, Param: "x-api-key",
		Meaning: "Authorization and x-api-key carry different keys: send the key in one of them."})
	CodeMissingAPIKey = apierr.Register(apierr.CodeInfo{Name: "missing_api_key", Kind: apierr.Unauthenticated,
		Meaning: "No API key was sent: send it in Authorization (the raw key) or in x-api-key."})
	CodeInvalidAuthorizationFormat = apierr.Register(apierr.CodeInfo{Name: "invalid_authorization_format", Kind: apierr.Unauthenticated,
		Meaning: "Authorization holds something else than the raw key (a Bearer prefix, say)."})
	CodeHeaderDuplicated = apierr.Register(apierr.CodeInfo{Name: "header_duplicated", Kind: apierr.Invalid,
		Meaning: "A header that must come once came with several values; param names it."})
)

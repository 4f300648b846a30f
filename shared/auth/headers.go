package auth

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/paygate/paygate/shared/apierr"
)

// The two headers a key may come in (spec §5), as the OpenAPI document
// names them.
const (
	HeaderAuthorization = "Authorization"
	HeaderAPIKey        = "x-api-key"
)

// FromHeaders returns the raw key sent in Authorization or x-api-key (spec
// §5). A "Bearer " value is refused with a message that says what to send.
// Ambiguous credentials are a 400 naming the header, never a guess: either
// header sent twice, or both sent with different keys (a proxy and the
// service could each pick another account). Both with the same key is fine.
func FromHeaders(h http.Header) (string, error) {
	auth, err := single(h, HeaderAuthorization)
	if err != nil {
		return "", err
	}
	apiKey, err := single(h, HeaderAPIKey)
	if err != nil {
		return "", err
	}
	auth, apiKey = strings.TrimSpace(auth), strings.TrimSpace(apiKey)
	if auth != "" && apiKey != "" && auth != apiKey {
		return "", &apierr.Error{Kind: apierr.Invalid, Code: "conflicting_api_keys", Param: "x-api-key",
			Message: "Authorization and x-api-key carry different keys; send the key in one of them"}
	}
	v := auth
	if v == "" {
		v = apiKey
	}
	if v == "" {
		return "", &apierr.Error{Kind: apierr.Unauthenticated, Code: "missing_api_key",
			Message: "no API key: send it in the Authorization header (the raw key) or in x-api-key"}
	}
	if len(v) > 7 && strings.EqualFold(v[:7], "bearer ") {
		return "", &apierr.Error{Kind: apierr.Unauthenticated, Code: "invalid_authorization_format",
			Message: "send the raw API key in Authorization, without the Bearer prefix"}
	}
	if len(v) > 200 {
		return "", errInvalidKey
	}
	return v, nil
}

// single returns a header's one value, or a 400 when it was sent more than
// once: as two lines (net/http keeps them apart) or joined by a comma, the
// form they arrive in behind API Gateway; no key contains a comma.
func single(h http.Header, name string) (string, error) {
	vs := h.Values(name)
	switch {
	case len(vs) > 1:
		return "", DuplicateHeader(name)
	case len(vs) == 0:
		return "", nil
	case strings.Contains(vs[0], ","):
		return "", DuplicateHeader(name)
	}
	return vs[0], nil
}

// DuplicateHeader is the 400 for a header that must come once and came with
// several values.
func DuplicateHeader(name string) *apierr.Error {
	return &apierr.Error{Kind: apierr.Invalid, Code: "header_duplicated", Param: name,
		Message: fmt.Sprintf("the %s header was sent more than once; send it once, with one value", name)}
}

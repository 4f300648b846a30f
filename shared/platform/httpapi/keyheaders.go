package httpapi

import (
	"net/http"
	"strings"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/auth"
)

// The two headers a key may come in (spec §5), as the OpenAPI document
// names them.
const (
	HeaderAuthorization = "Authorization"
	HeaderAPIKey        = "x-api-key"
)

// keyFromHeaders returns the raw key sent in Authorization or x-api-key (spec
// §5). A "Bearer " value is refused with a message that says what to send.
// Ambiguous credentials are a 400 naming the header, never a guess: either
// header sent twice, or both sent with different keys (a proxy and the
// service could each pick another account). Both with the same key is fine.
func keyFromHeaders(h http.Header) (string, error) {
	authz, err := single(h, HeaderAuthorization)
	if err != nil {
		return "", err
	}
	apiKey, err := single(h, HeaderAPIKey)
	if err != nil {
		return "", err
	}
	authz, apiKey = strings.TrimSpace(authz), strings.TrimSpace(apiKey)
	if authz != "" && apiKey != "" && authz != apiKey {
		return "", apierr.New(CodeConflictingAPIKeys, "Authorization and x-api-key carry different keys; send the key in one of them")
	}
	v := authz
	if v == "" {
		v = apiKey
	}
	if v == "" {
		return "", apierr.New(CodeMissingAPIKey, "no API key: send it in the Authorization header (the raw key) or in x-api-key")
	}
	if len(v) > 7 && strings.EqualFold(v[:7], "bearer ") {
		return "", apierr.New(CodeInvalidAuthorizationFormat, "send the raw API key in Authorization, without the Bearer prefix")
	}
	if len(v) > 200 {
		return "", auth.ErrInvalidKey
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
		return "", duplicateHeader(name)
	case len(vs) == 0:
		return "", nil
	case strings.Contains(vs[0], ","):
		return "", duplicateHeader(name)
	}
	return vs[0], nil
}

// duplicateHeader is the 400 for a header that must come once and came with
// several values.
func duplicateHeader(name string) *apierr.Error {
	return apierr.New(CodeHeaderDuplicated, "the %s header was sent more than once; send it once, with one value", name).WithParam(name)
}

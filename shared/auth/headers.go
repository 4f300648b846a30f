package auth

import (
	"net/http"
	"strings"

	"github.com/paygate/paygate/shared/apierr"
)

// FromHeaders returns the raw key sent in Authorization or x-api-key (spec
// §5). A "Bearer " value is refused with a message that says what to send.
func FromHeaders(h http.Header) (string, error) {
	v := strings.TrimSpace(h.Get("Authorization"))
	if v == "" {
		v = strings.TrimSpace(h.Get("X-Api-Key"))
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

package customers

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/paygate/paygate/shared/domain/vault"
	"github.com/paygate/paygate/shared/platform/apierr"
)

func chars(s string) int { return utf8.RuneCountInString(s) }

func quote(s string) string { return strconv.Quote(s) }

func equalFold(a, b string) bool { return strings.EqualFold(a, b) }

// checkExternalRef checks an external_ref: checkout's shopperReference
// rules, 3 to 256 characters (the string rule holds already: the decoder's,
// or the query's).
func checkExternalRef(param, ref string, optional bool) error {
	if ref == "" && optional {
		return nil
	}
	if n := chars(ref); n < MinExternalRef || n > MaxExternalRef {
		return apierr.Invalidf(param, "%s must have %d to %d characters (it is checkout's shopperReference)", param, MinExternalRef, MaxExternalRef)
	}
	return nil
}

func checkOptionalEmail(param, email string) error {
	if email == "" {
		return nil
	}
	return vault.CheckEmail(param, email)
}

func checkLen(param, s string, max int) error {
	if chars(s) > max {
		return apierr.Invalidf(param, "%s must be at most %d characters", param, max)
	}
	return nil
}

// TokenIDPrefix starts every card token id (checkout's stored payment
// method ids: a keyed fingerprint).
const TokenIDPrefix = "spm_"

// MaxTokenID is the longest card token id (checkout's storedPaymentMethodId).
const MaxTokenID = 64

// checkTokenID checks a card token id's form: "spm_" and URL-safe base64
// characters, at most MaxTokenID.
func checkTokenID(param, id string) error {
	ok := strings.HasPrefix(id, TokenIDPrefix) && len(id) > len(TokenIDPrefix) && len(id) <= MaxTokenID
	for _, r := range id[min(len(id), len(TokenIDPrefix)):] {
		ok = ok && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}
	if !ok {
		return apierr.Invalidf(param, "%s must be a card token id: %s and up to %d letters, digits, - or _", param, TokenIDPrefix, MaxTokenID-len(TokenIDPrefix))
	}
	return nil
}

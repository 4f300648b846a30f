package vault

import (
	"net/mail"
	"strings"
	"unicode/utf8"

	"github.com/paygate/paygate/shared/platform/apierr"
)

// MaxEmail is the longest e-mail address (RFC 5321's path limit).
const MaxEmail = 254

// CheckEmail checks an e-mail address: a bare addr-spec with a domain (no
// display name, no angle brackets), at most MaxEmail characters. Errors:
// Invalid naming param.
func CheckEmail(param, email string) error {
	if utf8.RuneCountInString(email) > MaxEmail {
		return apierr.Invalidf(param, "%s must be at most %d characters", param, MaxEmail)
	}
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || a.Name != "" || !strings.Contains(email[strings.LastIndexByte(email, '@')+1:], ".") {
		return apierr.Invalidf(param, "%s must be an e-mail address such as shopper@example.com", param)
	}
	return nil
}

package cards

import (
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/platform/apierr"
)

// cardError is a 400 card_error naming a logical card field (number,
// expiryMonth, expiryYear, cvc); callers map it to the request's field name.
func cardError(field string, code apierr.Code, format string, args ...any) *apierr.Error {
	return apierr.New(code, format, args...).WithParam(field)
}

// Brand returns the scheme brand of a number ("" when unsupported).
func Brand(number string) string {
	switch {
	case strings.HasPrefix(number, "34") || strings.HasPrefix(number, "37"):
		return "amex"
	case strings.HasPrefix(number, "4"):
		return "visa"
	case len(number) >= 2 && number[0] == '5' && number[1] >= '1' && number[1] <= '5':
		return "mc"
	case len(number) >= 4 && number[:4] >= "2221" && number[:4] <= "2720":
		return "mc"
	}
	return ""
}

// Luhn reports whether number passes the Luhn check.
func Luhn(number string) bool {
	if len(number) < 12 || len(number) > 19 {
		return false
	}
	sum := 0
	for i := 0; i < len(number); i++ {
		c := number[len(number)-1-i]
		if c < '0' || c > '9' {
			return false
		}
		d := int(c - '0')
		if i%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// Validate checks number, expiry and CVC at now and returns the brand.
func Validate(c Card, now time.Time) (string, error) {
	num := strings.ReplaceAll(c.Number, " ", "")
	if !Luhn(num) {
		return "", cardError("number", CodeInvalidNumber, "the card number is not a valid card number")
	}
	brand := Brand(num)
	if brand == "" {
		return "", cardError("number", CodeCardNotSupported, "only visa, mc and amex cards are supported")
	}
	if err := CheckExpiry(c.ExpiryMonth, c.ExpiryYear, now); err != nil {
		return "", err
	}
	want := 3
	if brand == "amex" {
		want = 4
	}
	if len(c.CVC) != want || strings.Trim(c.CVC, "0123456789") != "" {
		return "", cardError("cvc", CodeInvalidCVC, "the security code must have %d digits for %s", want, brand)
	}
	return brand, nil
}

// CheckExpiry checks an expiry month (1-12) and year (4 digits, or 2) at
// now: a card is valid through the last day of its expiry month. Errors are
// card_error naming expiryMonth or expiryYear (expired_card when past).
func CheckExpiry(monthText, yearText string, now time.Time) error {
	month, err := strconv.Atoi(monthText)
	if err != nil || month < 1 || month > 12 || len(monthText) > 2 {
		return cardError("expiryMonth", CodeInvalidExpiryMonth, "the expiry month must be 1 to 12")
	}
	year, err := strconv.Atoi(yearText)
	if err != nil || !(len(yearText) == 4 || len(yearText) == 2) {
		return cardError("expiryYear", CodeInvalidExpiryYear, "the expiry year must have 4 digits")
	}
	if year < 100 {
		year += 2000
	}
	now = now.UTC()
	if !now.Before(time.Date(year, time.Month(month)+1, 1, 0, 0, 0, 0, time.UTC)) {
		return cardError("expiryYear", CodeExpiredCard, "the card expired in %02d/%d", month, year)
	}
	if year > now.Year()+20 {
		return cardError("expiryYear", CodeInvalidExpiryYear, "the expiry year is too far in the future")
	}
	return nil
}

package money

import (
	"strconv"
	"strings"
)

// MaxMinor is the largest amount, in minor units, that parsing and the
// checked arithmetic accept: 10^15 (ten trillion USD, a quadrillion JPY). It
// is far below the int64 limit, so sums of a few valid amounts cannot
// overflow, and far above any real payment.
const MaxMinor int64 = 1_000_000_000_000_000

// MaxBalance is the most a balance (one account, one currency) may hold, in
// minor units: 10^17, a hundred times MaxMinor, so a balance holds many
// maximal deposits, and still 92 times below int64, so the refunds of orders
// charged before a balance was topped up to its maximum always fit. The
// ledger passes it to the store as the bound of every credit (store.Op.Max),
// so the check is atomic on both adapters: a deposit that would pass it is a
// 400 and changes nothing.
const MaxBalance int64 = 100 * MaxMinor

// DecimalPattern is the exact syntax of a DecimalAmount (the OpenAPI
// document's pattern): digits without leading zeros, then optionally "." and
// one or more digits. ParseDecimalField accepts exactly the strings it matches
// that have at most the currency's decimal places and are at most MaxMinor.
const DecimalPattern = `^(0|[1-9][0-9]*)(\.[0-9]+)?$`

// ParseDecimalField parses a non-negative decimal string in major units (the
// spec's DecimalAmount, e.g. "10.50") into minor units of c, exactly.
//
// Accepted: exactly DecimalPattern, that is ASCII digits with no leading
// zero (but "0" itself), optionally followed by "." and at least one digit,
// with at most c.Exponent() decimal places ("10", "10.5", "10.50", "0.05" for
// USD; "1000" but not "1000.0" for JPY). Rejected: empty, signs ("+1"),
// leading zeros ("010.00", "00.5"), spaces, exponent notation, "1.", ".5",
// "1,00", and values above MaxMinor. One value has few spellings, so a proxy
// and the service read the same amount. A leading "-" on an otherwise valid
// number fails with ErrNegative so callers can say so.
//
// Errors are *apierr.Error of kind Invalid whose Param is field (a JSON
// path; none when field is "").
func ParseDecimalField(field, s string, c Currency) (int64, error) {
	name := subject(field, "amount")
	if c.IsZero() {
		return 0, invalid(field, ErrUnknownCurrency, "%s has no valid currency", name)
	}
	if s == "" {
		return 0, invalid(field, ErrSyntax, "%s must not be empty", name)
	}
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		if _, _, ok := splitDecimal(rest); ok {
			return 0, invalid(field, ErrNegative, "%s must not be negative", name)
		}
	}
	whole, frac, ok := splitDecimal(s)
	if !ok {
		return 0, invalid(field, ErrSyntax, "%s must be a decimal string such as \"10.50\"", name)
	}
	if len(whole) > 1 && whole[0] == '0' {
		return 0, invalid(field, ErrSyntax, "%s must not have leading zeros (\"10.50\", \"0.50\")", name)
	}
	if len(frac) > c.exp {
		if c.exp == 0 {
			return 0, invalid(field, ErrPrecision, "%s must be a whole number: %s has no decimal places", name, c.code)
		}
		return 0, invalid(field, ErrPrecision, "%s has more than %d decimal places, the most %s allows", name, c.exp, c.code)
	}
	// The minor-unit value is the digits of whole and frac followed by zeros
	// up to the exponent. v stays <= MaxMinor before each step, so v*10+9
	// cannot overflow.
	var v int64
	for i := 0; i < len(whole)+c.exp; i++ {
		d := int64(0)
		switch {
		case i < len(whole):
			d = int64(whole[i] - '0')
		case i-len(whole) < len(frac):
			d = int64(frac[i-len(whole)] - '0')
		}
		v = v*10 + d
		if v > MaxMinor {
			return 0, invalid(field, ErrRange, "%s must be at most %s", name, FormatDecimal(MaxMinor, c))
		}
	}
	return v, nil
}

// splitDecimal splits "123.45" into "123" and "45"; ok is false unless s is
// one or more ASCII digits, optionally followed by "." and one or more digits.
func splitDecimal(s string) (whole, frac string, ok bool) {
	whole, frac, hasDot := strings.Cut(s, ".")
	if !allDigits(whole) || (hasDot && !allDigits(frac)) {
		return "", "", false
	}
	return whole, frac, true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// FormatDecimal renders minor units of c in major units with exactly
// c.Exponent() decimal places: 1000 is "10.00" in USD, "1000" in JPY, "1.000"
// in KWD, and -150 is "-1.50" in USD. It is the inverse of ParseDecimalField for
// non-negative amounts.
func FormatDecimal(minor int64, c Currency) string {
	neg := minor < 0
	// Negating in uint64 keeps math.MinInt64 correct.
	u := uint64(minor)
	if neg {
		u = -u
	}
	digits := strconv.FormatUint(u, 10)
	if c.exp > 0 {
		if pad := c.exp + 1 - len(digits); pad > 0 {
			digits = strings.Repeat("0", pad) + digits
		}
		cut := len(digits) - c.exp
		digits = digits[:cut] + "." + digits[cut:]
	}
	if neg {
		return "-" + digits
	}
	return digits
}

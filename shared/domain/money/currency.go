// Package money handles amounts as int64 minor units with an ISO 4217
// currency. It never uses floats: decimal strings are parsed and formatted
// digit by digit.
package money

import (
	"sync"

	"golang.org/x/text/currency"
)

// Currency is an ISO 4217 currency and its minor-unit exponent (2 for USD:
// 1000 minor units are 10.00). The zero value is not a valid currency.
type Currency struct {
	code string
	exp  int
}

// Code is the upper-case ISO 4217 code, e.g. "USD".
func (c Currency) Code() string { return c.code }

// Exponent is the number of decimal places of the currency's minor unit.
func (c Currency) Exponent() int { return c.exp }

func (c Currency) String() string { return c.code }

// IsZero reports whether c is the zero Currency (not parsed from a code).
func (c Currency) IsZero() bool { return c.code == "" }

// inUse is x/text's set of codes currently in use anywhere, tender or not.
// ParseISO alone also accepts long-dead codes such as DEM.
// It is built on first use, not at every cold start.
var inUse = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for it := currency.Query(currency.NonTender); it.Next(); {
		m[it.Unit().String()] = true
	}
	return m
})

// ParseCurrency accepts exactly three upper-case letters naming a current
// ISO 4217 currency. Lower case is rejected rather than folded: the API's
// convention is upper case, and a lenient parse would let two spellings of
// one code into stored records. Errors are *apierr.Error of kind Invalid with
// no Param; use ParseCurrencyField to name the field.
func ParseCurrency(code string) (Currency, error) {
	return ParseCurrencyField("", code)
}

// ParseCurrencyField is ParseCurrency with errors naming field (a JSON path).
func ParseCurrencyField(field, code string) (Currency, error) {
	if !isUpperAlpha3(code) {
		return Currency{}, invalid(field, ErrSyntax, "%s must be a three-letter upper-case ISO 4217 currency code", subject(field, "currency"))
	}
	if exp, ok := newerCodes[code]; ok {
		return Currency{code: code, exp: exp}, nil
	}
	if rejectedCodes[code] || !inUse()[code] {
		return Currency{}, invalid(field, ErrUnknownCurrency, "%s %q is not a supported ISO 4217 currency", subject(field, "currency"), code)
	}
	u, err := currency.ParseISO(code)
	if err != nil {
		return Currency{}, invalid(field, ErrUnknownCurrency, "%s %q is not a supported ISO 4217 currency", subject(field, "currency"), code)
	}
	exp, ok := isoMinorUnits[code]
	if !ok {
		exp, _ = currency.Standard.Rounding(u)
	}
	return Currency{code: code, exp: exp}, nil
}

func isUpperAlpha3(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

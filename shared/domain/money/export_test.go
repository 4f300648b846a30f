package money

// Test-only helpers: nothing outside the tests calls these.

// MustParseCurrency is ParseCurrency for constants and tests; it panics on an
// invalid code.
func MustParseCurrency(code string) Currency {
	c, err := ParseCurrency(code)
	if err != nil {
		panic(err)
	}
	return c
}

// ParseDecimal is ParseDecimalField without a field name.
func ParseDecimal(s string, c Currency) (int64, error) {
	return ParseDecimalField("", s, c)
}

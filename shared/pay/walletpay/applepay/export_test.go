package applepay

// Test-only helpers: nothing outside the tests calls these.

// Currencies lists the table's alphabetic codes.
func Currencies() []string {
	out := make([]string, 0, len(numericCodes))
	for a := range numericCodes {
		out = append(out, a)
	}
	return out
}

package wallet

import (
	"time"

	"github.com/paygate/paygate/shared/apierr"
)

// CheckIIN checks a Kazakh individual identification number: twelve digits,
// YYMMDD (a real date), a century/sex digit 1-6 (1-2: 1800s, 3-4: 1900s,
// 5-6: 2000s), four serial digits and a check digit computed by the official
// two-pass weighted mod 11 rule (see iinCheckDigit).
func CheckIIN(s string) error {
	if len(s) != 12 {
		return apierr.Invalidf("iin", "iin must be exactly 12 digits")
	}
	var d [12]int
	for i := 0; i < 12; i++ {
		if s[i] < '0' || s[i] > '9' {
			return apierr.Invalidf("iin", "iin must be exactly 12 digits")
		}
		d[i] = int(s[i] - '0')
	}
	var century int
	switch d[6] {
	case 1, 2:
		century = 1800
	case 3, 4:
		century = 1900
	case 5, 6:
		century = 2000
	default:
		return apierr.Invalidf("iin", "iin's 7th digit (century and sex) must be 1 to 6")
	}
	y, m, day := century+d[0]*10+d[1], d[2]*10+d[3], d[4]*10+d[5]
	t := time.Date(y, time.Month(m), day, 0, 0, 0, 0, time.UTC)
	if m < 1 || m > 12 || t.Year() != y || int(t.Month()) != m || t.Day() != day {
		return apierr.Invalidf("iin", "iin's first six digits (YYMMDD) are not a real date")
	}
	check, ok := iinCheckDigit(d)
	if !ok || check != d[11] {
		return apierr.Invalidf("iin", "iin's check digit is wrong")
	}
	return nil
}

// iinCheckDigit is sum(d_i * i, i=1..11) mod 11; when that is 10, the sum is
// taken again with weights 3..11,1,2; 10 again means no IIN has these first
// eleven digits.
func iinCheckDigit(d [12]int) (int, bool) {
	sum := 0
	for i := 0; i < 11; i++ {
		sum += d[i] * (i + 1)
	}
	if c := sum % 11; c != 10 {
		return c, true
	}
	w := [11]int{3, 4, 5, 6, 7, 8, 9, 10, 11, 1, 2}
	sum = 0
	for i := 0; i < 11; i++ {
		sum += d[i] * w[i]
	}
	c := sum % 11
	return c, c != 10
}

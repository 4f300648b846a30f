// Package kzid checks the identifiers Kazakhstan's payments carry: a
// person's IIN and a company's BIN (twelve digits, one check digit rule), a
// Kazakh IBAN (ISO 13616, mod 97), a Kazakh bank's BIC (ISO 9362), the KBe
// code (residency and economic sector of a beneficiary), the KNP purpose
// code of a transfer, and a phone number in E.164 form. Every check returns
// nil or a 400 (apierr Invalid) naming the field it was given, with a
// message that says what is wrong.
package kzid

import (
	"time"

	"github.com/paygate/paygate/shared/platform/apierr"
)

// digits12 reads twelve ASCII digits.
func digits12(s string) ([12]int, bool) {
	var d [12]int
	if len(s) != 12 {
		return d, false
	}
	for i := 0; i < 12; i++ {
		if s[i] < '0' || s[i] > '9' {
			return d, false
		}
		d[i] = int(s[i] - '0')
	}
	return d, true
}

// CheckIIN checks a Kazakh individual identification number: twelve digits,
// YYMMDD (a real date), a century/sex digit 1-6 (1-2: 1800s, 3-4: 1900s,
// 5-6: 2000s), four serial digits and a check digit computed by the official
// two-pass weighted mod 11 rule (CheckDigit).
func CheckIIN(param, s string) error {
	d, ok := digits12(s)
	if !ok {
		return apierr.Invalidf(param, "%s must be exactly 12 digits", param)
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
		return apierr.Invalidf(param, "%s's 7th digit (century and sex) must be 1 to 6", param)
	}
	y, m, day := century+d[0]*10+d[1], d[2]*10+d[3], d[4]*10+d[5]
	t := time.Date(y, time.Month(m), day, 0, 0, 0, 0, time.UTC)
	if m < 1 || m > 12 || t.Year() != y || int(t.Month()) != m || t.Day() != day {
		return apierr.Invalidf(param, "%s's first six digits (YYMMDD) are not a real date", param)
	}
	if c, ok := CheckDigit(d); !ok || c != d[11] {
		return apierr.Invalidf(param, "%s's check digit is wrong", param)
	}
	return nil
}

// CheckBIN checks a Kazakh business identification number: twelve digits,
// YYMM of registration (a month 01-12), the kind of entity (5th digit: 4 a
// resident legal entity, 5 a non-resident one, 6 an individual entrepreneur
// in joint form), its attribute (6th digit: 0 head office, 1 branch, 2
// representative office, 3 peasant farm in joint form), five serial digits
// and the check digit of the IIN's rule (CheckDigit).
func CheckBIN(param, s string) error {
	d, ok := digits12(s)
	if !ok {
		return apierr.Invalidf(param, "%s must be exactly 12 digits", param)
	}
	if m := d[2]*10 + d[3]; m < 1 || m > 12 {
		return apierr.Invalidf(param, "%s's 3rd and 4th digits (the month of registration) must be 01 to 12", param)
	}
	if d[4] < 4 || d[4] > 6 {
		return apierr.Invalidf(param, "%s's 5th digit (the kind of entity) must be 4, 5 or 6", param)
	}
	if d[5] > 3 {
		return apierr.Invalidf(param, "%s's 6th digit (head office, branch, representative office or farm) must be 0 to 3", param)
	}
	if c, ok := CheckDigit(d); !ok || c != d[11] {
		return apierr.Invalidf(param, "%s's check digit is wrong", param)
	}
	return nil
}

// CheckDigit is the IIN and BIN check digit of d's first eleven digits:
// sum(d_i * i, i=1..11) mod 11; when that is 10, the sum is taken again with
// weights 3..11,1,2; 10 again means no IIN or BIN has these first eleven
// digits (ok false).
func CheckDigit(d [12]int) (int, bool) {
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

// KBe: the beneficiary code of a Kazakh payment order, two digits: the
// residency (1 resident of Kazakhstan, 2 non-resident) and the economic
// sector of the National Bank's classifier (1 central government, 2 regional
// and local government, 3 the central bank, 4 other deposit-taking
// institutions, 5 other financial organisations, 6 state-owned non-financial
// organisations, 7 private non-financial organisations, 8 non-profit
// organisations serving households, 9 households). A person is a household
// (sector 9: 19 or 29); a company is any other sector (11 to 18, 21 to 28).

// CheckKBe checks kbe and its consistency with the beneficiary's kind.
func CheckKBe(param, s string, person bool) error {
	if len(s) != 2 || s[0] < '1' || s[0] > '2' || s[1] < '1' || s[1] > '9' {
		return apierr.Invalidf(param, "%s must be two digits: residency (1 resident, 2 non-resident) then the economic sector (1 to 9)", param)
	}
	switch {
	case person && s[1] != '9':
		return apierr.Invalidf(param, "%s %s is a company's (sector %c); a person's is 19 (resident) or 29 (non-resident)", param, s, s[1])
	case !person && s[1] == '9':
		return apierr.Invalidf(param, "%s %s is a person's (sector 9, households); a company's sector is 1 to 8", param, s)
	}
	return nil
}

// CheckKNP checks a payment purpose code (KNP): three digits.
func CheckKNP(param, s string) error {
	if len(s) != 3 || s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9' || s[2] < '0' || s[2] > '9' {
		return apierr.Invalidf(param, "%s must be a payment purpose code (KNP) of exactly three digits, such as 119", param)
	}
	return nil
}

// CheckPhone accepts an E.164 number: "+", a country code not starting with
// 0, 8 to 15 digits in all; Kazakhstan's (+7) has exactly ten digits after
// the 7.
func CheckPhone(param, s string) error {
	bad := func(msg string) error { return apierr.Invalidf(param, "%s %s", param, msg) }
	if len(s) == 0 || s[0] != '+' {
		return bad("must be in E.164 form: + then the country code and number, e.g. +77011234567")
	}
	digits := s[1:]
	if len(digits) < 8 || len(digits) > 15 {
		return bad("must have 8 to 15 digits after the +")
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return bad("may hold only digits after the +")
		}
	}
	if digits[0] == '0' {
		return bad("has no country code (a country code never starts with 0)")
	}
	if digits[0] == '7' && len(digits) != 11 {
		return bad("of Kazakhstan and Russia (+7) has exactly ten digits after the 7")
	}
	return nil
}

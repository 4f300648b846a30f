package kzid

import (
	"fmt"

	"github.com/paygate/paygate/shared/platform/apierr"
)

// IBANLen is the length of a Kazakh IBAN: KZ, two check digits, a
// three-digit bank code and a thirteen-character account (ISO 13616's
// registry: KZkk bbbc cccc cccc cccc).
const IBANLen = 20

// CheckIBAN checks a Kazakh IBAN: upper case, no spaces, KZ, 20
// characters, the bank code digits, and the ISO 13616 check (the number
// read with the first four characters moved to the end, letters as 10 to
// 35, is 1 mod 97; check digits 02 to 98). Another country's IBAN is
// refused for what it is.
//
// Hand-written rather than a library: the IBAN libraries the module proxy
// serves are unmaintained (the maintained one, jacoelho/banking, is not
// served here), and one country's format plus mod 97 is a few tested lines.
func CheckIBAN(param, s string) error {
	if len(s) >= 2 && isUpper(s[0]) && isUpper(s[1]) && s[:2] != "KZ" {
		return apierr.Invalidf(param, "%s must be a Kazakh IBAN (KZ...); %s is another country's", param, s[:2])
	}
	if len(s) != IBANLen || s[:2] != "KZ" {
		return apierr.Invalidf(param, "%s must be a Kazakh IBAN: KZ, two check digits, then 16 characters (20 in all, upper case, no spaces)", param)
	}
	for i := 2; i < 7; i++ {
		if !isDigit(s[i]) {
			return apierr.Invalidf(param, "%s's check digits and bank code (characters 3 to 7) must be digits", param)
		}
	}
	for i := 7; i < IBANLen; i++ {
		if !isDigit(s[i]) && !isUpper(s[i]) {
			return apierr.Invalidf(param, "%s's account number (characters 8 to 20) must be digits or upper-case letters", param)
		}
	}
	if k := s[2:4]; k < "02" || k > "98" || Mod97(s[4:]+s[:4]) != 1 {
		return apierr.Invalidf(param, "%s's check digits are wrong (ISO 13616 mod 97)", param)
	}
	return nil
}

// Mod97 is s read as a number, letters as 10 to 35 (A to Z), mod 97; s
// holds only digits and upper-case letters.
func Mod97(s string) int {
	r := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isUpper(c) {
			v := int(c-'A') + 10
			r = (r*100 + v) % 97
			continue
		}
		r = (r*10 + int(c-'0')) % 97
	}
	return r
}

// IBAN builds the IBAN of a Kazakh bank code and account (its check digits
// computed), for the sandbox's documented IBANs and for tests.
func IBAN(bank, account string) string {
	bban := bank + account
	check := 98 - Mod97(bban+"KZ00")
	return fmt.Sprintf("KZ%02d%s", check, bban)
}

// CheckBIC checks a Kazakh bank's BIC (ISO 9362): four letters (the bank),
// KZ, two letters or digits (the location) and optionally three more (the
// branch): 8 or 11 characters, upper case.
func CheckBIC(param, s string) error {
	if len(s) != 8 && len(s) != 11 {
		return apierr.Invalidf(param, "%s must be 8 or 11 characters: bank (4 letters), country (KZ), location (2) and an optional branch (3)", param)
	}
	for i := 0; i < 4; i++ {
		if !isUpper(s[i]) {
			return apierr.Invalidf(param, "%s's first four characters (the bank) must be upper-case letters", param)
		}
	}
	if s[4:6] != "KZ" {
		return apierr.Invalidf(param, "%s must be a Kazakh bank's: characters 5 and 6 must be KZ", param)
	}
	for i := 6; i < len(s); i++ {
		if !isDigit(s[i]) && !isUpper(s[i]) {
			return apierr.Invalidf(param, "%s's location and branch must be digits or upper-case letters", param)
		}
	}
	return nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

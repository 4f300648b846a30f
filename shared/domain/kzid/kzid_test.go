package kzid

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/apierr"
)

func invalid(t *testing.T, err error, param, why string) {
	t.Helper()
	if assert.Error(t, err, why) {
		e := apierr.As(err)
		assert.Equal(t, apierr.Invalid, e.Kind, why)
		assert.Equal(t, param, e.Param, why)
		assert.NotEmpty(t, e.Message, why)
	}
}

func TestCheckIIN(t *testing.T) {
	for _, ok := range []string{"900101300017", "850715401236", "000229500424", "900101310506", "991231307774", "010101500013"} {
		assert.NoError(t, CheckIIN("iin", ok), ok)
	}
	for iin, why := range map[string]string{
		"900101300018":  "check digit off by one",
		"900101300010":  "check digit wrong",
		"900230300019":  "February 30th (check digit right)",
		"010229500426":  "2001-02-29, not a leap year (check digit right)",
		"901301300017":  "month 13",
		"900100300017":  "day 0",
		"900101000010":  "century digit 0",
		"900101700010":  "century digit 7",
		"90010131052":   "11 digits",
		"900101310520":  "first pass 10, second pass 10: no check digit exists",
		"9001013000177": "13 digits",
		"90010130001a":  "a letter",
		"":              "empty",
	} {
		invalid(t, CheckIIN("payer.iin", iin), "payer.iin", why)
	}
}

func TestCheckDigitTakesTheSecondPass(t *testing.T) {
	d, ok := digits12("900101310506")
	require.True(t, ok)
	sum := 0
	for i := 0; i < 11; i++ {
		sum += d[i] * (i + 1)
	}
	assert.Equal(t, 10, sum%11, "this IIN's first pass gives 10")
	c, ok := CheckDigit(d)
	assert.True(t, ok)
	assert.Equal(t, 6, c)
}

func TestCheckBIN(t *testing.T) {
	// Kaspi Bank and Halyk Bank's published BINs, and one of each kind of
	// entity with its check digit computed by the rule.
	for _, ok := range []string{"971240001315", "940140000385", "050540004455", "101150016542", "220362000015"} {
		assert.NoError(t, CheckBIN("bin", ok), ok)
	}
	for bin, why := range map[string]string{
		"971240001316": "check digit off by one",
		"940140000384": "check digit wrong",
		"971340001315": "month 13",
		"970040001315": "month 0",
		"971230001315": "5th digit 3: no such kind of entity",
		"971270001315": "5th digit 7",
		"971244001315": "6th digit 4",
		"97124000131":  "11 digits",
		"97124000131x": "a letter",
		"":             "empty",
	} {
		invalid(t, CheckBIN("bin", bin), "bin", why)
	}
}

func TestCheckIBAN(t *testing.T) {
	for _, ok := range []string{"KZ86125KZT5004100100", "KZ75125KZT2069100100", "KZ244350000012344567", IBAN("999", "0000000000001")} {
		assert.NoError(t, CheckIBAN("iban", ok), ok)
	}
	for iban, why := range map[string]string{
		"KZ87125KZT5004100100":     "check digits off by one",
		"KZ86125KZT5004100101":     "a digit of the account changed",
		"KZ86125KZT5004010100":     "two digits swapped",
		"DE89370400440532013000":   "a valid German IBAN: another country",
		"GB82WEST12345698765432":   "a valid British IBAN",
		"KZ86125KZT500410010":      "19 characters",
		"KZ86125KZT50041001000":    "21 characters",
		"kz86125kzt5004100100":     "lower case",
		"KZ86 125K ZT50 0410 0100": "spaces",
		"KZ8A125KZT5004100100":     "a letter in the check digits",
		"KZ86A25KZT5004100100":     "a letter in the bank code",
		"KZ86125KZT500410010!":     "punctuation",
		"KZ00125KZT5004100100":     "check digits 00",
		"":                         "empty",
	} {
		invalid(t, CheckIBAN("iban", iban), "iban", why)
	}
	err := CheckIBAN("iban", "DE89370400440532013000")
	assert.Contains(t, apierr.As(err).Message, "another country")
	err = CheckIBAN("iban", "KZ87125KZT5004100100")
	assert.Contains(t, apierr.As(err).Message, "mod 97")
}

func TestIBANBuildsValidCheckDigits(t *testing.T) {
	for _, acct := range []string{"0000000000001", "0000000000002", "ABCDEFGHIJKLM", "9999999999999"} {
		iban := IBAN("999", acct)
		assert.Len(t, iban, IBANLen)
		assert.NoError(t, CheckIBAN("iban", iban), iban)
	}
	assert.Equal(t, "KZ86125KZT5004100100", IBAN("125", "KZT5004100100"), "the published example")
}

func TestCheckBIC(t *testing.T) {
	for _, ok := range []string{"CASPKZKA", "HSBKKZKX", "KCJBKZKX", "CASPKZKA001", "HSBKKZKXXXX"} {
		assert.NoError(t, CheckBIC("bic", ok), ok)
	}
	for bic, why := range map[string]string{
		"CASPKZK":      "7 characters",
		"CASPKZKA0":    "9 characters",
		"CASPKZKA0011": "12 characters",
		"DEUTDEFF":     "a German bank's",
		"casPKZKA":     "lower case",
		"C4SPKZKA":     "a digit in the bank code",
		"CASPKZK-":     "punctuation",
		"":             "empty",
	} {
		invalid(t, CheckBIC("bic", bic), "bic", why)
	}
}

func TestCheckKBe(t *testing.T) {
	for _, c := range []struct {
		kbe    string
		person bool
	}{{"19", true}, {"29", true}, {"17", false}, {"11", false}, {"28", false}, {"14", false}} {
		assert.NoError(t, CheckKBe("kbe", c.kbe, c.person), c.kbe)
	}
	for _, c := range []struct {
		kbe    string
		person bool
		why    string
	}{
		{"17", true, "a company's code for a person"},
		{"19", false, "a person's code for a company"},
		{"29", false, "a non-resident person's code for a company"},
		{"39", true, "residency 3"},
		{"10", false, "sector 0"},
		{"1", true, "one digit"},
		{"119", true, "three digits"},
		{"1a", false, "a letter"},
		{"", true, "empty"},
	} {
		invalid(t, CheckKBe("kbe", c.kbe, c.person), "kbe", c.why)
	}
}

func TestCheckKNP(t *testing.T) {
	for _, ok := range []string{"119", "311", "710", "000"} {
		assert.NoError(t, CheckKNP("purpose_code", ok), ok)
	}
	for _, bad := range []string{"11", "1190", "1a9", "", " 119"} {
		invalid(t, CheckKNP("purpose_code", bad), "purpose_code", bad)
	}
}

func TestCheckPhone(t *testing.T) {
	for _, ok := range []string{"+77011234567", "+12025550123", "+4915112345678", "+33612345678", "+861234567890123"} {
		assert.NoError(t, CheckPhone("phone", ok), ok)
	}
	for _, bad := range []string{"77011234567", "87011234567", "+7701123456", "+770112345678", "+0123456789", "+1234567",
		"+1234567890123456", "+7 701 123 45 67", "+7-701-123-4567", "", "+"} {
		invalid(t, CheckPhone("payer.phone", bad), "payer.phone", bad)
	}
}

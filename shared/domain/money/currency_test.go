package money

import (
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/paygate/paygate/shared/platform/apierr"
)

// isoListOne is ISO 4217 list one (current currencies and funds) without the
// X codes that have no minor unit, as published through 2025. ZWL is left out:
// Zimbabwe replaced it with ZWG and x/text no longer lists it as in use.
const isoListOne = `AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND
BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE
CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG
HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR
LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK
NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP
SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN
UYI UYU UYW UZS VED VES VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW ZWG`

// isoExponent is ISO 4217's minor unit, from ISO's short lists of the
// currencies that are not 2 — independent of x/text and of iso4217.go.
func isoExponent(code string) int {
	switch code {
	case "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF",
		"UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF":
		return 0
	case "BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND":
		return 3
	case "CLF", "UYW":
		return 4
	}
	return 2
}

func TestExponents(t *testing.T) {
	for code, want := range map[string]int{
		"USD": 2, "EUR": 2, "GBP": 2, "JPY": 0, "KRW": 0, "KWD": 3, "BHD": 3,
		"KZT": 2, "CLF": 4, "CLP": 0, "IDR": 2, "COP": 2, "HUF": 2, "IQD": 3,
		"ISK": 0, "CHF": 2, "SEK": 2, "UYW": 4, "VES": 2, "XOF": 0,
	} {
		c, err := ParseCurrency(code)
		if err != nil {
			t.Errorf("ParseCurrency(%q): %v", code, err)
			continue
		}
		if c.Code() != code || c.String() != code || c.Exponent() != want {
			t.Errorf("ParseCurrency(%q) = %s exp %d, want exp %d", code, c.Code(), c.Exponent(), want)
		}
	}
}

// TestExponentsMatchISO4217 checks every three-letter code: the accepted set
// is exactly ISO list one, each with ISO's minor unit. It fails if an x/text
// upgrade changes CLDR data underneath the override tables.
func TestExponentsMatchISO4217(t *testing.T) {
	want := map[string]bool{}
	for _, code := range strings.Fields(isoListOne) {
		want[code] = true
	}
	var extra []string
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			for d := 'A'; d <= 'Z'; d++ {
				code := string([]rune{a, b, d})
				c, err := ParseCurrency(code)
				if err != nil {
					if want[code] {
						t.Errorf("ISO code %s rejected: %v", code, err)
					}
					continue
				}
				if !want[code] {
					extra = append(extra, code)
				}
				if c.Exponent() != isoExponent(code) {
					t.Errorf("%s exponent %d, ISO 4217 says %d", code, c.Exponent(), isoExponent(code))
				}
			}
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("accepted codes not in ISO list one: %v", extra)
	}
}

func TestParseCurrencyRejects(t *testing.T) {
	for _, tc := range []struct {
		in    string
		cause error
	}{
		{"", ErrSyntax},
		{"usd", ErrSyntax},
		{"Usd", ErrSyntax},
		{"US", ErrSyntax},
		{"USDD", ErrSyntax},
		{" USD", ErrSyntax},
		{"US1", ErrSyntax},
		{"ÜSD", ErrSyntax},
		{"ABC", ErrUnknownCurrency},
		{"DEM", ErrUnknownCurrency}, // known to x/text, long withdrawn
		{"HRK", ErrUnknownCurrency}, // withdrawn since x/text's data
		{"CNH", ErrUnknownCurrency}, // not ISO
		{"XAU", ErrUnknownCurrency}, // no minor unit
		{"XXX", ErrUnknownCurrency},
		{"XTS", ErrUnknownCurrency},
	} {
		_, err := ParseCurrency(tc.in)
		if !errors.Is(err, tc.cause) {
			t.Errorf("ParseCurrency(%q) = %v, want cause %v", tc.in, err, tc.cause)
			continue
		}
		var ae *apierr.Error
		if !errors.As(err, &ae) || ae.Kind != apierr.Invalid || ae.Param != "" || ae.Message == "" {
			t.Errorf("ParseCurrency(%q) error %#v, want Invalid with a message and no param", tc.in, err)
		}
	}
}

func TestParseCurrencyField(t *testing.T) {
	_, err := ParseCurrencyField("amount.currency", "usd")
	ae := apierr.As(err)
	if ae.Kind != apierr.Invalid || ae.Param != "amount.currency" || !strings.HasPrefix(ae.Message, "amount.currency ") {
		t.Errorf("got %#v", ae)
	}
	if _, err := ParseCurrencyField("currency", "EUR"); err != nil {
		t.Errorf("EUR: %v", err)
	}
}

func TestMustParseCurrency(t *testing.T) {
	if MustParseCurrency("EUR").Code() != "EUR" {
		t.Error("EUR")
	}
	defer func() {
		if recover() == nil {
			t.Error("MustParseCurrency(\"eur\") did not panic")
		}
	}()
	MustParseCurrency("eur")
}

func TestZeroCurrency(t *testing.T) {
	var c Currency
	if !c.IsZero() || MustParseCurrency("USD").IsZero() {
		t.Error("IsZero")
	}
	if _, err := ParseDecimal("1", c); !errors.Is(err, ErrUnknownCurrency) {
		t.Errorf("ParseDecimal with zero currency: %v", err)
	}
}

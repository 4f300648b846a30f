package money

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/paygate/paygate/shared/platform/apierr"
)

var (
	usd = MustParseCurrency("USD")
	jpy = MustParseCurrency("JPY")
	kwd = MustParseCurrency("KWD")
	clf = MustParseCurrency("CLF")
)

func TestParseDecimalAccepts(t *testing.T) {
	for _, tc := range []struct {
		in   string
		c    Currency
		want int64
	}{
		{"10", usd, 1000},
		{"10.5", usd, 1050},
		{"10.50", usd, 1050},
		{"0.01", usd, 1},
		{"0", usd, 0},
		{"0.00", usd, 0},
		{"0.05", usd, 5},
		{"100", usd, 10000},
		{"1000", jpy, 1000},
		{"0", jpy, 0},
		{"1.000", kwd, 1000},
		{"1.5", kwd, 1500},
		{"0.001", kwd, 1},
		{"1.2345", clf, 12345},
		{"10000000000000", usd, MaxMinor},
		{"10000000000000.00", usd, MaxMinor},
		{"1000000000000000", jpy, MaxMinor},
		{"9999999999999.99", usd, MaxMinor - 1},
	} {
		got, err := ParseDecimal(tc.in, tc.c)
		if err != nil || got != tc.want {
			t.Errorf("ParseDecimal(%q, %s) = %d, %v; want %d", tc.in, tc.c, got, err, tc.want)
		}
	}
}

func TestParseDecimalRejects(t *testing.T) {
	for _, tc := range []struct {
		in    string
		c     Currency
		cause error
	}{
		{"", usd, ErrSyntax},
		{"-1", usd, ErrNegative},
		{"-0.50", usd, ErrNegative},
		{"-0", usd, ErrNegative},
		{"+1", usd, ErrSyntax},
		{"+0.50", usd, ErrSyntax},
		{"007.5", usd, ErrSyntax},
		{"010.00", usd, ErrSyntax},
		{"00", usd, ErrSyntax},
		{"00.5", usd, ErrSyntax},
		{"0100", jpy, ErrSyntax},
		{"-010", usd, ErrNegative},
		{"\t1", usd, ErrSyntax},
		{"1\u00a0", usd, ErrSyntax},
		{"１", usd, ErrSyntax}, // full-width digit
		{"1.0\x00", usd, ErrSyntax},
		{"--1", usd, ErrSyntax},
		{"-", usd, ErrSyntax},
		{"-1.", usd, ErrSyntax},
		{"1e3", usd, ErrSyntax},
		{"1E3", usd, ErrSyntax},
		{"1.5e2", usd, ErrSyntax},
		{"1.001", usd, ErrPrecision},
		{"1.000", usd, ErrPrecision},
		{"1.5", jpy, ErrPrecision},
		{"1.0", jpy, ErrPrecision},
		{"1.0001", kwd, ErrPrecision},
		{" 1", usd, ErrSyntax},
		{"1 ", usd, ErrSyntax},
		{"1\n", usd, ErrSyntax},
		{"1.", usd, ErrSyntax},
		{".5", usd, ErrSyntax},
		{".", usd, ErrSyntax},
		{"1,00", usd, ErrSyntax},
		{"1,000.00", usd, ErrSyntax},
		{"1.2.3", usd, ErrSyntax},
		{"0x10", usd, ErrSyntax},
		{"0x1p4", usd, ErrSyntax},
		{"NaN", usd, ErrSyntax},
		{"Inf", usd, ErrSyntax},
		{"+Inf", usd, ErrSyntax},
		{"infinity", usd, ErrSyntax},
		{"1_000", usd, ErrSyntax},
		{"١٢", usd, ErrSyntax}, // Arabic-Indic digits
		{"10000000000000.01", usd, ErrRange},
		{"10000000000001", usd, ErrRange},
		{"1000000000000001", jpy, ErrRange},
		{"9223372036854775807", jpy, ErrRange},
		{"99999999999999999999999999999", usd, ErrRange},
		{"99999999999999999999999999999x", usd, ErrSyntax},
	} {
		got, err := ParseDecimal(tc.in, tc.c)
		if !errors.Is(err, tc.cause) {
			t.Errorf("ParseDecimal(%q, %s) = %d, %v; want cause %v", tc.in, tc.c, got, err, tc.cause)
			continue
		}
		var ae *apierr.Error
		if !errors.As(err, &ae) || ae.Kind != apierr.Invalid || ae.Param != "" || ae.Message == "" {
			t.Errorf("ParseDecimal(%q) error %#v, want Invalid with a message and no param", tc.in, err)
		}
	}
}

func TestParseDecimalFieldMessages(t *testing.T) {
	for _, tc := range []struct {
		in   string
		c    Currency
		want string
	}{
		{"-1", usd, "topup_request.amount must not be negative"},
		{"1.001", usd, "topup_request.amount has more than 2 decimal places, the most USD allows"},
		{"1.5", jpy, "topup_request.amount must be a whole number: JPY has no decimal places"},
		{"1e3", usd, `topup_request.amount must be a decimal string such as "10.50"`},
		{"", usd, "topup_request.amount must not be empty"},
		{"010.00", usd, `topup_request.amount must not have leading zeros ("10.50", "0.50")`},
		{"99999999999999", usd, "topup_request.amount must be at most 10000000000000.00"},
	} {
		_, err := ParseDecimalField("topup_request.amount", tc.in, tc.c)
		ae := apierr.As(err)
		if ae.Kind != apierr.Invalid || ae.Param != "topup_request.amount" || ae.Message != tc.want {
			t.Errorf("ParseDecimalField(%q) = %q (param %q), want %q", tc.in, ae.Message, ae.Param, tc.want)
		}
	}
	if _, err := ParseDecimal("-1", usd); apierr.As(err).Message != "amount must not be negative" {
		t.Errorf("unnamed message: %v", err)
	}
}

func TestFormatDecimal(t *testing.T) {
	for _, tc := range []struct {
		minor int64
		c     Currency
		want  string
	}{
		{1000, usd, "10.00"},
		{1050, usd, "10.50"},
		{1, usd, "0.01"},
		{0, usd, "0.00"},
		{-150, usd, "-1.50"},
		{-1, usd, "-0.01"},
		{1000, jpy, "1000"},
		{-5, jpy, "-5"},
		{1000, kwd, "1.000"},
		{1, kwd, "0.001"},
		{12345, clf, "1.2345"},
		{MaxMinor, usd, "10000000000000.00"},
		{math.MaxInt64, usd, "92233720368547758.07"},
		{math.MinInt64, usd, "-92233720368547758.08"},
		{42, Currency{}, "42"},
	} {
		if got := FormatDecimal(tc.minor, tc.c); got != tc.want {
			t.Errorf("FormatDecimal(%d, %s) = %q, want %q", tc.minor, tc.c, got, tc.want)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	currencies := []Currency{usd, jpy, kwd, clf}
	values := []int64{0, 1, 9, 10, 99, 100, 101, 999, 1000, 1001, 123456789, MaxMinor - 1, MaxMinor}
	for v := int64(1); v < MaxMinor; v = v*7 + 3 {
		values = append(values, v)
	}
	for _, c := range currencies {
		for _, v := range values {
			s := FormatDecimal(v, c)
			got, err := ParseDecimal(s, c)
			if err != nil || got != v {
				t.Errorf("%s: ParseDecimal(FormatDecimal(%d) = %q) = %d, %v", c, v, s, got, err)
			}
		}
	}
}

func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{
		"10", "10.5", "10.50", "0.01", "0", "007.5", "010.00", "+1.00", "0.5", "1.001", "1.", ".5", "1,00",
		"-1", "+1", "1e3", " 1", "0x10", "NaN", "Inf", "10000000000000.00",
		"10000000000000.01", "9223372036854775807", "1.2345", "",
	} {
		for exp := range 5 {
			f.Add(s, exp)
		}
	}
	// exp indexes a fixed set of currencies with exponents 0, 2, 3 and 4.
	currencies := []Currency{jpy, usd, kwd, clf, MustParseCurrency("EUR")}
	f.Fuzz(func(t *testing.T, s string, exp int) {
		c := currencies[uint(exp)%uint(len(currencies))]
		v, err := ParseDecimal(s, c)
		if err != nil {
			if apierr.KindOf(err) != apierr.Invalid {
				t.Fatalf("ParseDecimal(%q): non-Invalid error %v", s, err)
			}
			return
		}
		if v < 0 || v > MaxMinor {
			t.Fatalf("ParseDecimal(%q) = %d, outside [0, MaxMinor]", s, v)
		}
		out := FormatDecimal(v, c)
		back, err := ParseDecimal(out, c)
		if err != nil || back != v {
			t.Fatalf("ParseDecimal(%q) = %d; FormatDecimal = %q parses to %d, %v", s, v, out, back, err)
		}
		if !decimalRE.MatchString(s) {
			t.Fatalf("ParseDecimal(%q) = %d, but the string does not match DecimalPattern", s, v)
		}
		// Cross-check against an independent float-free reading: the
		// formatted text is s padded with zeros.
		if want := padFraction(s, c.Exponent()); want != "" && out != want {
			t.Fatalf("ParseDecimal(%q) = %d formats as %q, want %q", s, v, out, want)
		}
	})
}

// padFraction returns s with its fraction zero-padded to exp digits, or "" if
// s has redundant leading zeros (those format differently).
func padFraction(s string, exp int) string {
	whole, frac, _ := splitDecimal(s)
	if len(whole) > 1 && whole[0] == '0' {
		return ""
	}
	for len(frac) < exp {
		frac += "0"
	}
	if exp == 0 {
		return whole
	}
	return whole + "." + frac
}

func TestPadFraction(t *testing.T) {
	for in, want := range map[string]string{"1.5": "1.50", "10": "10.00", "0.01": "0.01", "01": ""} {
		if got := padFraction(in, 2); got != want {
			t.Errorf("padFraction(%q) = %q, want %q", in, got, want)
		}
	}
}

var decimalRE = regexp.MustCompile(DecimalPattern)

// TestDecimalPatternIsTheParser: a string ParseDecimal takes matches
// DecimalPattern, and one that matches is refused only for its precision or
// its range, never for its syntax.
func TestDecimalPatternIsTheParser(t *testing.T) {
	for _, s := range []string{
		"0", "0.0", "0.5", "1", "10", "10.5", "10.50", "1.001", "9999999999999.99", "99999999999999999999",
		"", "00", "01", "010.00", "+1", "-1", "1.", ".5", "1e3", " 1", "1 ", "0x10", "1,00", "1_0", "١", "１",
	} {
		_, err := ParseDecimal(s, usd)
		matches := decimalRE.MatchString(s)
		switch {
		case err == nil && !matches:
			t.Errorf("ParseDecimal(%q) accepted a string the pattern refuses", s)
		case matches && errors.Is(err, ErrSyntax):
			t.Errorf("ParseDecimal(%q) refused the syntax of a string the pattern accepts: %v", s, err)
		case !matches && err != nil && !errors.Is(err, ErrSyntax) && !errors.Is(err, ErrNegative):
			t.Errorf("ParseDecimal(%q) = %v, want a syntax error", s, err)
		}
	}
}

// TestOpenAPIDecimalAmount: the OpenAPI document publishes the pattern the
// parser enforces, so generated clients and fuzzers see the real contract.
func TestOpenAPIDecimalAmount(t *testing.T) {
	b, err := os.ReadFile("../../platform/openapi/spec/base.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Pattern     string `json:"pattern"`
				Description string `json:"description"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	d := doc.Components.Schemas["DecimalAmount"]
	if d.Pattern != DecimalPattern {
		t.Errorf("DecimalAmount pattern %q, want %q", d.Pattern, DecimalPattern)
	}
	if !strings.Contains(d.Description, "leading zeros") {
		t.Errorf("DecimalAmount description does not state the rule: %q", d.Description)
	}
}

package ids

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/paygate/paygate/shared/platform/apierr"
)

func TestNewIsV7(t *testing.T) {
	s := New()
	if len(s) != 36 || strings.ToLower(s) != s {
		t.Fatalf("New() = %q, want canonical lower case", s)
	}
	u, err := uuid.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	if u.Version() != 7 || u.Variant() != uuid.RFC4122 {
		t.Errorf("New() = %s: version %d variant %v", s, u.Version(), u.Variant())
	}
	if s[14] != '7' {
		t.Errorf("version nibble of %s is %c", s, s[14])
	}
}

// TestOrdering checks that string order is generation order, which is what
// makes v7 ids usable as sort keys.
func TestOrdering(t *testing.T) {
	for name, gen := range map[string]func() string{
		"New":      New,
		"Prefixed": func() string { return Prefixed("evt") },
	} {
		got := make([]string, 10000)
		for i := range got {
			got[i] = gen()
		}
		if !sort.StringsAreSorted(got) {
			t.Errorf("%s: ids not in generation order", name)
		}
		seen := map[string]bool{}
		for _, id := range got {
			if seen[id] {
				t.Fatalf("%s: duplicate id %s", name, id)
			}
			seen[id] = true
		}
	}
}

func TestPrefixed(t *testing.T) {
	s := Prefixed("evt")
	if !strings.HasPrefix(s, "evt_") || len(s) != 4+32 {
		t.Fatalf("Prefixed = %q", s)
	}
	u, err := uuid.Parse(s[4:])
	if err != nil || u.Version() != 7 {
		t.Errorf("Prefixed hex %q: version %d, %v", s[4:], u.Version(), err)
	}
	if !ValidPrefixed("evt", s) {
		t.Errorf("ValidPrefixed(evt, %q) = false", s)
	}
	for _, bad := range []string{
		"", "evt", "evt_", "key_" + s[4:], "evt-" + s[4:], "evt_" + strings.ToUpper(s[4:]),
		s + "0", s[:len(s)-1], "evt_" + s[4:len(s)-1] + "g", "evtx" + s[4:],
	} {
		if ValidPrefixed("evt", bad) {
			t.Errorf("ValidPrefixed(evt, %q) = true", bad)
		}
	}
}

func TestParse(t *testing.T) {
	const lower = "123e4567-e89b-12d3-a456-426614174000"
	for _, s := range []string{
		lower,
		"00000000-0000-0000-0000-000000000000",
		New(),
	} {
		u, err := Parse(s)
		if err != nil || u.String() != s || !Valid(s) {
			t.Errorf("Parse(%q) = %s, %v", s, u, err)
		}
	}
	for _, s := range []string{
		"",
		strings.ToUpper(lower),
		"123E4567-e89b-12d3-a456-426614174000", // one upper-case letter
		"{" + lower + "}",
		"urn:uuid:" + lower,
		strings.ReplaceAll(lower, "-", ""),
		lower[:35],
		lower + "0",
		" " + lower[1:],
		"123e4567-e89b-12d3-a456_426614174000",
		"123e4567-e89b-12d3-a456-42661417400g",
		"123e4567e-89b-12d3-a456-426614174000",
	} {
		if Valid(s) {
			t.Errorf("Valid(%q) = true", s)
		}
	}
	_, err := ParseField("agent_id", "nope")
	ae := apierr.As(err)
	if ae.Kind != apierr.Invalid || ae.Param != "agent_id" || !strings.HasPrefix(ae.Message, "agent_id ") {
		t.Errorf("ParseField error %#v", ae)
	}
	if _, err := Parse("nope"); apierr.As(err).Param != "" {
		t.Errorf("Parse set a param: %v", err)
	}
}

func TestParseUpperCaseSaysLowerCase(t *testing.T) {
	_, err := ParseField("orderId", "123E4567-E89B-12D3-A456-426614174000")
	ae := apierr.As(err)
	if ae.Kind != apierr.Invalid || ae.Param != "orderId" ||
		ae.Message != `orderId must be a UUID in lower case, such as "123e4567-e89b-12d3-a456-426614174000"` {
		t.Errorf("ParseField error %#v", ae)
	}
}

func TestParseInt(t *testing.T) {
	for s, want := range map[string]int64{
		"1": 1, "311": 311, "10": 10, "9223372036854775807": MaxInt,
	} {
		if n, err := ParseInt("productId", s); err != nil || n != want {
			t.Errorf("ParseInt(%q) = %d, %v; want %d", s, n, err, want)
		}
	}
	for _, s := range []string{
		"", "0", "00", "0311", "+311", "-3", " 311", "311 ", "311.0", "3.11e2", "0x137", "3_11", "311\x00",
		"９", "٣١١", "9223372036854775808", "18446744073709551616", "99999999999999999999", "1" + strings.Repeat("0", 30),
	} {
		n, err := ParseInt("productId", s)
		ae := apierr.As(err)
		if err == nil || ae.Kind != apierr.Invalid || ae.Param != "productId" {
			t.Errorf("ParseInt(%q) = %d, %v; want a 400 naming productId", s, n, err)
		}
	}
}

func TestNewAtSortsByTheGivenTimeWithinItsBounds(t *testing.T) {
	at := time.Date(2026, 11, 23, 20, 30, 0, 123_000_000, time.UTC)
	a, b := NewAt(at), NewAt(at.Add(time.Millisecond))
	if !(a < b) {
		t.Fatalf("%s !< %s", a, b)
	}
	if lo, hi := Bound(at, false), Bound(at, true); !(lo <= a && a <= hi && hi < b) {
		t.Fatalf("bounds %s..%s, ids %s %s", lo, hi, a, b)
	}
	u, err := Parse(a)
	if err != nil || u.Version() != 7 {
		t.Fatalf("%s: %v, version %d", a, err, u.Version())
	}
	if sec, nsec := u.Time().UnixTime(); time.Unix(sec, nsec).UnixMilli() != at.UnixMilli() {
		t.Fatalf("%s carries %d, want %d", a, time.Unix(sec, nsec).UnixMilli(), at.UnixMilli())
	}
}

// TestNewAtIsStrictlyIncreasingWithinAMillisecond: ids of one given
// millisecond follow their call order even while the wall clock's
// millisecond turns (its sub-millisecond counter restarts then), so a
// capture's entry sorts before its settlement's.
func TestNewAtIsStrictlyIncreasingWithinAMillisecond(t *testing.T) {
	at := time.Date(2026, 11, 24, 21, 0, 0, 0, time.UTC)
	prev := NewAt(at)
	for deadline := time.Now().Add(5 * time.Millisecond); time.Now().Before(deadline); {
		id := NewAt(at)
		if !(prev < id) {
			t.Fatalf("%s !< %s", prev, id)
		}
		if lo, hi := Bound(at, false), Bound(at, true); !(lo <= id && id <= hi) {
			t.Fatalf("%s outside %s..%s", id, lo, hi)
		}
		if u, err := Parse(id); err != nil || u.Version() != 7 || u.Variant() != uuid.RFC4122 {
			t.Fatalf("%s: %v, version %d, variant %v", id, err, u.Version(), u.Variant())
		}
		prev = id
	}
}

func TestSuccessorCarriesPastTheVersionAndVariantBits(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"0190a6c2-3b7e-7d4c-9a51-2f6e8b1c0d42", "0190a6c2-3b7e-7d4c-9a51-2f6e8b1c0d43"},
		{"0190a6c2-3b7e-7d4c-9a51-ffffffffffff", "0190a6c2-3b7e-7d4c-9a52-000000000000"},
		{"0190a6c2-3b7e-7d4c-bfff-ffffffffffff", "0190a6c2-3b7e-7d4d-8000-000000000000"},
		{"0190a6c2-3b7e-70ff-bfff-ffffffffffff", "0190a6c2-3b7e-7100-8000-000000000000"},
	} {
		if got := successor(uuid.MustParse(c.in)).String(); got != c.want {
			t.Errorf("successor(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

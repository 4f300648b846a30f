// Package ids makes and checks record ids: UUIDv7 for records (time-ordered,
// so keys sort by creation) and prefixed hex ids for things the spec does not
// require to be UUIDs, such as events and API keys.
package ids

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/paygate/paygate/shared/platform/apierr"
)

// New returns a new UUIDv7 in canonical lower-case form. Within one process
// ids are strictly increasing in string order (google/uuid keeps a monotonic
// 12-bit sub-millisecond counter).
func New() string {
	return newV7().String()
}

// Prefixed returns p + "_" + the 32 lower-case hex digits of a new UUIDv7,
// e.g. "evt_0190f3a2b4c47d1e8a...". p is a fixed, code-chosen prefix.
func Prefixed(p string) string {
	u := newV7()
	return p + "_" + hex.EncodeToString(u[:])
}

// ValidPrefixed reports whether s has the form Prefixed(p) produces: p, "_",
// and 32 lower-case hex digits.
func ValidPrefixed(p, s string) bool {
	if len(s) != len(p)+1+32 || s[:len(p)] != p || s[len(p)] != '_' {
		return false
	}
	for _, r := range []byte(s[len(p)+1:]) {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

// Parse accepts only the canonical form: 36 characters, hyphenated, lower
// case, any version (ids like agent_id come from clients). Upper case is
// refused, not folded, like uuid.Parse's other forms (braces, "urn:uuid:",
// bare hex): one id has one spelling, so a cache, a log search or a proxy
// rule keyed on an id sees the string the service stores and returns. Errors
// are *apierr.Error of kind Invalid with no Param; set Param or use
// ParseField.
func Parse(s string) (uuid.UUID, error) {
	return ParseField("", s)
}

// ParseField is Parse with errors naming field (a JSON path or path parameter).
func ParseField(field, s string) (uuid.UUID, error) {
	name := field
	if name == "" {
		name = "id"
	}
	if len(s) == 36 {
		if u, err := uuid.Parse(s); err == nil {
			if u.String() == s {
				return u, nil
			}
			return uuid.UUID{}, apierr.Invalidf(field, "%s must be a UUID in lower case, such as %q", name, u.String())
		}
	}
	return uuid.UUID{}, apierr.Invalidf(field, "%s must be a UUID such as \"123e4567-e89b-12d3-a456-426614174000\"", name)
}

// MaxInt is the largest integer id ParseInt accepts: int64's maximum.
const MaxInt = 1<<63 - 1

// ParseInt parses a positive integer id (a catalog product, category or
// product type) from a path or query parameter, strictly: ASCII digits only,
// no leading zero, no sign, no spaces, no fraction or exponent, at most
// MaxInt. strconv.ParseInt alone would read "+311" and "0311" as 311, so two
// spellings would reach one record (and a proxy rule on "/products/311" would
// miss them). Errors are *apierr.Error of kind Invalid naming field.
func ParseInt(field, s string) (int64, error) {
	bad := apierr.Invalidf(field, "%s must be a positive integer written with digits only, without a sign or leading zeros", field)
	if s == "" || len(s) > 19 || s[0] == '0' {
		return 0, bad
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, bad
		}
		n = n*10 + uint64(s[i]-'0') // 19 digits fit in uint64
	}
	if n > MaxInt {
		return 0, bad
	}
	return int64(n), nil
}

// Valid reports whether Parse accepts s.
func Valid(s string) bool {
	_, err := Parse(s)
	return err == nil
}

// newV7 panics only if the system's random source fails, which since Go 1.24
// crypto/rand already treats as fatal.
func newV7() uuid.UUID {
	return uuid.Must(uuid.NewV7())
}

// NewAt is a UUIDv7 carrying the millisecond of now (a service clock, which
// tests move) instead of the wall clock's: records keyed by it sort by their
// created time, so a created range is a key range (see Bound). Within one
// process, ids of one millisecond are strictly increasing in call order:
// the wall clock's sub-millisecond counter that newV7 carries restarts when
// the wall clock's millisecond turns, so two ids of the same given
// millisecond (a frozen test clock, or two entries of one write such as a
// capture and its settlement) could otherwise sort the other way round.
func NewAt(now time.Time) string {
	u := newV7()
	setMillis(&u, now.UnixMilli())
	lastAt.Lock()
	defer lastAt.Unlock()
	if bytes.Equal(u[0:6], lastAt.u[0:6]) && bytes.Compare(u[:], lastAt.u[:]) <= 0 {
		u = successor(lastAt.u)
	}
	lastAt.u = u
	return u.String()
}

// lastAt is the last id NewAt made.
var lastAt struct {
	sync.Mutex
	u uuid.UUID
}

// successor is the next UUIDv7 after u in the same millisecond: its 74
// random bits (the 12 of rand_a, then the 62 of rand_b) counted up by one,
// the version and variant bits kept. Their overflow would need 2^74 ids in
// one millisecond.
func successor(u uuid.UUID) uuid.UUID {
	for i := 15; i >= 6; i-- {
		switch i {
		case 8: // variant (2 bits) and 6 bits of rand_b
			if u[i]&0x3f != 0x3f {
				u[i]++
				return u
			}
			u[i] &^= 0x3f
		case 6: // version (4 bits) and 4 bits of rand_a
			u[i] = u[i]&0xf0 | (u[i]+1)&0x0f
			return u
		default:
			u[i]++
			if u[i] != 0 {
				return u
			}
		}
	}
	return u
}

// Bound is the smallest (or, upper, the largest) UUIDv7 string of t's
// millisecond: the key bounds of a created range over NewAt ids.
func Bound(t time.Time, upper bool) string {
	var u uuid.UUID
	if upper {
		for i := range u {
			u[i] = 0xff
		}
	}
	setMillis(&u, t.UnixMilli())
	return u.String()
}

func setMillis(u *uuid.UUID, ms int64) {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(ms))
	copy(u[0:6], b[2:8])
}

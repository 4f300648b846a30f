// Package ids makes and checks record ids: UUIDv7 for records (time-ordered,
// so keys sort by creation) and prefixed hex ids for things the spec does not
// require to be UUIDs, such as events and API keys.
package ids

import (
	"encoding/hex"

	"github.com/google/uuid"

	"github.com/paygate/paygate/shared/apierr"
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

// Parse accepts only the canonical 36-character hyphenated form, in either
// case, and any version (ids like agent_id come from clients). uuid.Parse's
// other forms (braces, "urn:uuid:", bare hex) are rejected so one id has one
// spelling. Errors are *apierr.Error of kind Invalid with no Param; set Param
// or use ParseField. Store the result's String(), which is lower case.
func Parse(s string) (uuid.UUID, error) {
	return ParseField("", s)
}

// ParseField is Parse with errors naming field (a JSON path or path parameter).
func ParseField(field, s string) (uuid.UUID, error) {
	if len(s) == 36 {
		if u, err := uuid.Parse(s); err == nil {
			return u, nil
		}
	}
	name := field
	if name == "" {
		name = "id"
	}
	return uuid.UUID{}, apierr.Invalidf(field, "%s must be a UUID such as \"123e4567-e89b-12d3-a456-426614174000\"", name)
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

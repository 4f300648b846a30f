package dashboard

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"golang.org/x/crypto/argon2"
)

// TestDummyHashHasTheDefaultParameters: the unknown-email check costs what a
// real user's does only while the written-out hash has DefaultArgon's
// parameters, and it must parse (checkPassword would return at once).
func TestDummyHashHasTheDefaultParameters(t *testing.T) {
	want := fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$", argon2.Version, DefaultArgon.Memory, DefaultArgon.Time, DefaultArgon.Threads)
	assert.True(t, strings.HasPrefix(dummyHash, want), "dummyHash must use DefaultArgon: hash a password with hashPassword and write it out again")
	assert.False(t, checkPassword("not a password of anyone", dummyHash+"x"), "a hash that does not parse is refused at once")
	assert.True(t, checkPassword("not a password of anyone", dummyHash), "a whole argon2 check runs")
}

// TestEveryPageParses: pages are parsed on first use, so a broken template
// would only show when its page is first shown; this parses them all.
func TestEveryPageParses(t *testing.T) {
	assert.NotEmpty(t, pages)
	for name, page := range pages {
		assert.NotPanics(t, func() { page() }, name)
	}
}

package auth

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The request path's one-allocation key is the same key and hash the
// records are written under.
func TestSecretKeyIsTheHashKey(t *testing.T) {
	for _, secret := range []string{"", "sk_test_0123456789abcdefghijklmnopqrstuv", "ck_live_" + string(make([]byte, 300))} {
		key, h := secretKey(secret)
		assert.Equal(t, Hash(secret), h)
		assert.Equal(t, hashKey(Hash(secret)), key)
	}
}

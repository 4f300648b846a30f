package sessiondata

import (
	"context"

	"github.com/paygate/paygate/shared/store"
)

// Test-only helpers: nothing outside the tests calls these.

// NewSigner builds a signer with one key of at least MinSecretLen bytes.
func NewSigner(secret []byte) (*Signer, error) { return NewKeyring([][]byte{secret}) }

// SigningKeyID is the id of the key Seal uses now.
func (s *Signer) SigningKeyID() string { return s.keys(false).ids[0] }

// LoadSecret is LoadKeys' signing key.
func LoadSecret(ctx context.Context, st store.Store, getenv func(string) string, allowGenerated bool) ([]byte, error) {
	keys, err := LoadKeys(ctx, st, getenv, allowGenerated)
	if err != nil {
		return nil, err
	}
	return keys[0], nil
}

// Package cardkeys is the port to the store of the card encryption keys'
// private halves (KMS in a deployed stack, key files locally): the keyring of
// shared/domain/cse asks it to make keys, read their public halves and
// unwrap a payment's content-encryption key, and never sees a private key.
package cardkeys

import (
	"context"
	"crypto/rsa"
	"errors"
)

// ErrUndecryptable is every reason a JWE cannot be opened with an active
// key: callers answer it with one message and no detail.
var ErrUndecryptable = errors.New("cse: the encrypted card cannot be opened with an active key")

// Backend holds private keys and unwraps content-encryption keys with them.
// ref names one key as the Backend knows it (a KMS key ARN, a key file).
type Backend interface {
	// Name is the backend's kind as the keyring records it ("kms", "file").
	Name() string
	// Create makes a key pair like the key like ("" when there is none yet:
	// a backend that needs one to copy, KMS for its key policy, refuses).
	Create(ctx context.Context, like string) (ref string, pub *rsa.PublicKey, err error)
	// PublicKey reads the public half of ref.
	PublicKey(ctx context.Context, ref string) (*rsa.PublicKey, error)
	// DecryptKey unwraps an RSA-OAEP-256 encrypted key with ref's private
	// half: ErrUndecryptable when that key cannot, any other error when the
	// backend could not be asked.
	DecryptKey(ctx context.Context, ref string, encryptedKey []byte) ([]byte, error)
}

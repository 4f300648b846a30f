// Package secretbox is the port that seals the secrets the service must
// read back (webhook endpoints' signing secrets, dashboard users' TOTP
// secrets) before they are stored, with envelope encryption: each Seal
// draws a fresh 256-bit data key from a DataKeys backend (a KMS key's
// GenerateDataKey in a deployed stack, a key file locally), encrypts with
// AES-256-GCM, and stores the wrapped data key beside the ciphertext, so
// neither the store nor a copy of it holds a secret in clear. Like the card
// keyring's backend (shared/domain/cardkeys), the backend is picked once, by
// the wiring (app.Deps.Secrets).
//
// A sealed value is one string:
//
//	sbx1.<backend>.<wrapped data key>.<nonce and ciphertext>
//
// (the two binary parts base64url without padding). The header is the
// GCM's additional data, so a value cannot be moved to another backend's
// name or another wrapped key. IsSealed tells a sealed value from a secret
// stored in clear before sealing existed, which callers still read and seal
// on their next write.
//
// Open caches the data keys it unwrapped for CacheFor, so a webhook sender
// signing delivery after delivery asks KMS once per key and instance, not
// once per send.
package secretbox

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Box seals and opens small secrets.
type Box interface {
	// Seal encrypts plaintext into a sealed string (IsSealed is true of it).
	Seal(ctx context.Context, plaintext []byte) (string, error)
	// Open decrypts what Seal made: ErrUnopenable when the value is not a
	// sealed one, was altered, or its data key cannot be unwrapped by this
	// backend; any other error when the backend could not be asked.
	Open(ctx context.Context, sealed string) ([]byte, error)
}

// DataKeys is a backend of envelope encryption: it draws data keys and
// unwraps them, and never hands out the key that wraps them.
type DataKeys interface {
	// Name is the backend's kind as sealed values record it ("kms", "file").
	Name() string
	// Generate returns a fresh 32-byte data key and its wrapped form.
	Generate(ctx context.Context) (plain, wrapped []byte, err error)
	// Unwrap returns the data key of wrapped: ErrUnopenable when this
	// backend cannot, any other error when it could not be asked.
	Unwrap(ctx context.Context, wrapped []byte) ([]byte, error)
}

// ErrUnopenable is every reason a sealed value cannot be opened.
var ErrUnopenable = errors.New("secretbox: the sealed value cannot be opened")

// Prefix starts every sealed value.
const Prefix = "sbx1."

// IsSealed reports whether s is a sealed value (else: a secret stored in
// clear before sealing).
func IsSealed(s string) bool { return strings.HasPrefix(s, Prefix) }

// CacheFor is how long Open keeps a data key it unwrapped.
const CacheFor = 5 * time.Minute

// maxCached bounds the data keys kept (one per sealed secret read).
const maxCached = 1024

// Envelope is the Box over a DataKeys backend.
type Envelope struct {
	keys  DataKeys
	clock func() time.Time

	mu    sync.Mutex
	cache map[string]cached // by wrapped key
}

type cached struct {
	key   []byte
	until time.Time
}

// New is the Box over keys; nil clock means time.Now.
func New(keys DataKeys, clock func() time.Time) *Envelope {
	if clock == nil {
		clock = time.Now
	}
	return &Envelope{keys: keys, clock: clock, cache: map[string]cached{}}
}

var b64 = base64.RawURLEncoding

// Seal encrypts plaintext under a fresh data key.
func (e *Envelope) Seal(ctx context.Context, plaintext []byte) (string, error) {
	dk, wrapped, err := e.keys.Generate(ctx)
	if err != nil {
		return "", fmt.Errorf("secretbox: data key: %w", err)
	}
	if len(dk) != 32 {
		return "", fmt.Errorf("secretbox: %s gave a %d-byte data key, want 32", e.keys.Name(), len(dk))
	}
	gcm, err := newGCM(dk)
	if err != nil {
		return "", err
	}
	header := Prefix + e.keys.Name() + "." + b64.EncodeToString(wrapped)
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	ct := gcm.Seal(nonce, nonce, plaintext, []byte(header))
	return header + "." + b64.EncodeToString(ct), nil
}

// Open decrypts a sealed value.
func (e *Envelope) Open(ctx context.Context, sealed string) ([]byte, error) {
	if !IsSealed(sealed) {
		return nil, ErrUnopenable
	}
	parts := strings.Split(strings.TrimPrefix(sealed, Prefix), ".")
	if len(parts) != 3 || parts[0] != e.keys.Name() {
		return nil, ErrUnopenable
	}
	wrapped, err1 := b64.DecodeString(parts[1])
	ct, err2 := b64.DecodeString(parts[2])
	if err1 != nil || err2 != nil || len(wrapped) == 0 {
		return nil, ErrUnopenable
	}
	dk, err := e.dataKey(ctx, wrapped)
	if err != nil {
		return nil, err
	}
	gcm, err := newGCM(dk)
	if err != nil {
		return nil, ErrUnopenable
	}
	if len(ct) < gcm.NonceSize() {
		return nil, ErrUnopenable
	}
	header := sealed[:len(sealed)-len(parts[2])-1]
	pt, err := gcm.Open(nil, ct[:gcm.NonceSize()], ct[gcm.NonceSize():], []byte(header))
	if err != nil {
		return nil, ErrUnopenable
	}
	return pt, nil
}

// dataKey unwraps wrapped, from the cache while it holds it.
func (e *Envelope) dataKey(ctx context.Context, wrapped []byte) ([]byte, error) {
	id := string(wrapped)
	now := e.clock()
	e.mu.Lock()
	c, ok := e.cache[id]
	e.mu.Unlock()
	if ok && now.Before(c.until) {
		return c.key, nil
	}
	dk, err := e.keys.Unwrap(ctx, wrapped)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.cache) >= maxCached {
		for k, v := range e.cache {
			if !now.Before(v.until) || len(e.cache) >= maxCached {
				delete(e.cache, k)
			}
		}
	}
	e.cache[id] = cached{key: dk, until: now.Add(CacheFor)}
	return dk, nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

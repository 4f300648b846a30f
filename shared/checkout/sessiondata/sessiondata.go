// Package sessiondata seals small values into opaque, tamper-evident tokens:
// a checkout session's sessionData and the paymentData of a pending action.
//
// Format: "<purpose-tag>.<base64url JSON>.<base64url HMAC-SHA256>". The MAC
// covers the purpose and the payload, so a token made for one purpose never
// opens as another. The payload is readable by whoever holds the token (it
// holds ids, amounts and expiry, nothing secret); what matters is that nobody
// without the key can change it.
//
// The key comes from SESSION_SIGNING_SECRET (read once at start). Without it,
// local runs (the embedded store, or the local environment) use a random key
// created once and persisted in the store, so tokens survive restarts of
// `make run`; a deployed function refuses to start without the variable.
package sessiondata

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/paygate/paygate/shared/store"
)

// EnvVar holds the signing secret in deployed stacks.
const EnvVar = "SESSION_SIGNING_SECRET"

// MinSecretLen is the shortest accepted secret, in bytes.
const MinSecretLen = 32

// ErrInvalid is returned for any token that does not verify: malformed,
// tampered, signed with another key or made for another purpose.
var ErrInvalid = errors.New("sessiondata: invalid token")

// Signer seals and opens tokens with one key.
type Signer struct{ key []byte }

// NewSigner builds a signer; the secret must have at least MinSecretLen bytes.
func NewSigner(secret []byte) (*Signer, error) {
	if len(secret) < MinSecretLen {
		return nil, fmt.Errorf("sessiondata: the signing secret needs at least %d bytes", MinSecretLen)
	}
	return &Signer{key: bytes.Clone(secret)}, nil
}

func (s *Signer) mac(purpose string, payload []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write(payload)
	return m.Sum(nil)
}

var enc = base64.RawURLEncoding

// Seal returns the token of v for purpose (a short lowercase tag).
func (s *Signer) Seal(purpose string, v any) (string, error) {
	payload, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return purpose + "." + enc.EncodeToString(payload) + "." + enc.EncodeToString(s.mac(purpose, payload)), nil
}

// Open verifies token for purpose and decodes its payload into v.
func (s *Signer) Open(purpose, token string, v any) error {
	parts := strings.Split(token, ".")
	if len(parts) != 3 || parts[0] != purpose {
		return ErrInvalid
	}
	payload, err1 := enc.DecodeString(parts[1])
	sig, err2 := enc.DecodeString(parts[2])
	if err1 != nil || err2 != nil || !hmac.Equal(sig, s.mac(purpose, payload)) {
		return ErrInvalid
	}
	if err := json.Unmarshal(payload, v); err != nil {
		return ErrInvalid
	}
	return nil
}

// secretKey is where a local run keeps its generated secret.
var secretKey = store.Key{Table: store.TableAccounts, PK: "config#session-signing-secret", SK: "secret"}

// LoadSecret returns the signing secret: SESSION_SIGNING_SECRET when set
// (hex is decoded when it is valid hex, else the raw bytes are used); else,
// when allowGenerated, the store's persisted random secret (created on first
// use with put-if-absent, so concurrent starters agree); else an error.
func LoadSecret(ctx context.Context, st store.Store, getenv func(string) string, allowGenerated bool) ([]byte, error) {
	if getenv != nil {
		if v := getenv(EnvVar); v != "" {
			b := []byte(v)
			if h, err := hex.DecodeString(v); err == nil {
				b = h
			}
			if len(b) < MinSecretLen {
				return nil, fmt.Errorf("%s must hold at least %d bytes (e.g. 64 hex characters)", EnvVar, MinSecretLen)
			}
			return b, nil
		}
	}
	if !allowGenerated {
		return nil, fmt.Errorf("%s is not set", EnvVar)
	}
	it, err := st.Get(ctx, secretKey)
	if err == nil {
		return it.Data, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	err = st.Write(ctx, store.Put(store.Item{Key: secretKey, Data: fresh}, store.IfAbsent))
	if cf, ok := store.IsConditionFailed(err); ok && cf.Current != nil {
		return cf.Current.Data, nil // another process created it first
	}
	if err != nil {
		return nil, err
	}
	return fresh, nil
}

// Package cse opens card data encrypted in Adyen's client-side-encryption
// format: a compact JWE with alg RSA-OAEP-256, enc A256CBC-HS512, the
// protected header's "version" "1" and the "kid" of one of the platform's
// keys (or no kid, as Adyen's own libraries write it: then the active keys
// are tried newest first), over a JSON payload of the card fields (number, holderName, cvc,
// expiryMonth, expiryYear, generationtime). The JWE itself (parsing, the
// content decryption and its tag check) is github.com/go-jose/go-jose/v4's;
// this package picks the key, asks a Backend to unwrap the content-encryption
// key, and checks the payload's age.
//
// Keys: a Keyring lists the keys (kid, public half, which Backend key holds
// the private half, created and expiry times) in one store item, so every
// function instance sees a rotation at once; the private halves never leave
// their Backend. Two adapters: kmskeys (an asymmetric RSA key in AWS KMS:
// KMS decrypts the content-encryption key, one Decrypt call per payment) and
// localkeys (PEM files under the data directory, for make run and tests).
//
// Every reason a JWE cannot be opened (malformed, another alg or enc, an
// unknown kid, an expired key, a wrong key, a tampered header, key, IV,
// ciphertext or tag, a payload that is not the card JSON, a generationtime
// more than MaxAge old or in the future) is the one ErrUndecryptable: the
// caller answers one 400 that says none of it, so the API is no oracle for
// probing keys or ciphertexts. A Backend that cannot be reached is another
// error (a 503, safe to retry).
package cse

import (
	"context"
	"crypto/rsa"
	"encoding/json"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/paygate/paygate/shared/domain/cardkeys"
)

// The format's fixed parameters.
const (
	Alg     = string(jose.RSA_OAEP_256)
	Enc     = string(jose.A256CBC_HS512)
	Version = "1"
)

// MaxAge is how old a payload's generationtime may be (Adyen's 24 hours);
// MaxSkew is how far ahead of the server's clock it may be.
const (
	MaxAge  = 24 * time.Hour
	MaxSkew = 10 * time.Minute
)

// ErrUndecryptable is every reason a JWE cannot be opened with an active
// key (the port's, shared/domain/cardkeys).
var ErrUndecryptable = cardkeys.ErrUndecryptable

// Card is the decrypted payload. Fields beyond Adyen's (Cryptogram, ECI) are
// set only by the platform itself, when it seals a wallet's network token
// (shared/pay/direct's payment tokens); a merchant's payload is read without them.
type Card struct {
	Number         string `json:"number"`
	HolderName     string `json:"holderName,omitempty"`
	CVC            string `json:"cvc,omitempty"`
	ExpiryMonth    string `json:"expiryMonth"`
	ExpiryYear     string `json:"expiryYear"`
	GenerationTime string `json:"generationtime"`
	Cryptogram     string `json:"cryptogram,omitempty"`
	ECI            string `json:"eci,omitempty"`
}

// Backend is the port to the keys' private halves (shared/domain/cardkeys).
type Backend = cardkeys.Backend

// unwrapper is go-jose's opaque key decrypter over a Backend key. go-jose
// folds every unwrap error into one crypto failure, so the backend's own
// error is kept to tell a bad ciphertext from a backend that is down.
type unwrapper struct {
	ctx     context.Context
	backend Backend
	ref     string
	err     error
}

func (u *unwrapper) DecryptKey(encryptedKey []byte, _ jose.Header) ([]byte, error) {
	cek, err := u.backend.DecryptKey(u.ctx, u.ref, encryptedKey)
	u.err = err
	return cek, err
}

// header is what the compact JWE's protected header must say.
func checkHeader(obj *jose.JSONWebEncryption) (kid string, ok bool) {
	h := obj.Header
	if h.Algorithm != Alg || h.JSONWebKey != nil {
		return "", false
	}
	if v, _ := h.ExtraHeaders["version"].(string); v != Version {
		return "", false
	}
	if e, _ := h.ExtraHeaders[jose.HeaderKey("enc")].(string); e != Enc {
		return "", false
	}
	// No compression (a decompression bomb is not worth the bytes it saves)
	// and no critical extensions.
	if _, zip := h.ExtraHeaders["zip"]; zip {
		return "", false
	}
	if _, crit := h.ExtraHeaders["crit"]; crit {
		return "", false
	}
	return h.KeyID, true
}

// parseCard reads a payload and checks its age at now.
func parseCard(plaintext []byte, now time.Time) (Card, error) {
	var c Card
	if err := json.Unmarshal(plaintext, &c); err != nil {
		return Card{}, ErrUndecryptable
	}
	gen, err := ParseGenerationTime(c.GenerationTime)
	if err != nil || now.Sub(gen) > MaxAge || gen.Sub(now) > MaxSkew {
		return Card{}, ErrUndecryptable
	}
	c.Number = strings.ReplaceAll(c.Number, " ", "")
	return c, nil
}

// ParseGenerationTime reads a generationtime as Adyen's libraries write it
// (ISO 8601 with milliseconds and an offset: 2024-05-01T09:00:00.000Z).
func ParseGenerationTime(s string) (time.Time, error) {
	return time.Parse(time.RFC3339Nano, s)
}

// FormatGenerationTime writes t the way Adyen's libraries do.
func FormatGenerationTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// Encrypt seals a payload to pub under kid in the client-side-encryption
// format, as a merchant's page or server would (see docs/direct-payments.md's examples).
// The platform uses it to keep wallet tokens (Keyring.Seal); tests use it
// as a merchant.
func Encrypt(kid string, pub *rsa.PublicKey, payload []byte) (string, error) {
	opts := (&jose.EncrypterOptions{}).WithHeader("version", Version)
	enc, err := jose.NewEncrypter(jose.A256CBC_HS512, jose.Recipient{Algorithm: jose.RSA_OAEP_256, Key: pub, KeyID: kid}, opts)
	if err != nil {
		return "", err
	}
	obj, err := enc.Encrypt(payload)
	if err != nil {
		return "", err
	}
	return obj.CompactSerialize()
}

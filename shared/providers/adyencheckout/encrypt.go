package adyencheckout

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/cse"
)

// encrypter seals card fields to the provider's client-side-encryption key.
type encrypter struct {
	kid    string
	pub    *rsa.PublicKey
	sealed *sealedCards
}

// parseKey reads a JWK (JSON) holding an RSA public key.
func parseKey(raw string) (*encrypter, error) {
	var k jose.JSONWebKey
	if err := k.UnmarshalJSON([]byte(raw)); err != nil {
		return nil, errors.New("adyencheckout: EncryptionKey is not a JWK")
	}
	pub, ok := k.Key.(*rsa.PublicKey)
	if !ok || !k.IsPublic() {
		return nil, errors.New("adyencheckout: EncryptionKey must be an RSA public key")
	}
	if k.Algorithm != "" && k.Algorithm != cse.Alg {
		return nil, errors.New("adyencheckout: EncryptionKey's alg must be " + cse.Alg)
	}
	return &encrypter{kid: k.KeyID, pub: pub, sealed: newSealedCards()}, nil
}

// field seals one field as Adyen's secured fields do: a JWE over
// {"<name>": value, "generationtime": ...}.
func (e *encrypter) field(name, value string, now time.Time) (string, error) {
	b, err := json.Marshal(map[string]string{name: value, "generationtime": cse.FormatGenerationTime(now)})
	if err != nil {
		return "", err
	}
	return cse.Encrypt(e.kid, e.pub, b)
}

// card fills m's encrypted fields with c's (a CVC only when there is one),
// the same as the last time under key when this process sealed them lately.
func (e *encrypter) card(m *methodDetails, key string, c cards.Card, now time.Time) error {
	id := e.sealed.id(key, c)
	if got, ok := e.sealed.get(id, now); ok {
		*m = got
		return nil
	}
	if err := e.seal(m, c, now); err != nil {
		return err
	}
	e.sealed.put(id, *m, now)
	return nil
}

func (e *encrypter) seal(m *methodDetails, c cards.Card, now time.Time) error {
	fields := []struct {
		dst         *string
		name, value string
	}{
		{&m.EncryptedCardNumber, "number", c.Number},
		{&m.EncryptedExpiryMonth, "expiryMonth", c.ExpiryMonth},
		{&m.EncryptedExpiryYear, "expiryYear", c.ExpiryYear},
		{&m.EncryptedSecurityCode, "cvc", c.CVC},
	}
	for _, f := range fields {
		if f.value == "" {
			continue
		}
		s, err := e.field(f.name, f.value, now)
		if err != nil {
			return err
		}
		*f.dst = s
	}
	return nil
}

// sealedCards keeps the encrypted card fields sent under each idempotency
// key for a while, so a retry of the same authorisation by this process
// sends the same bytes: each encryption is randomised (and carries its
// generationtime), and a provider that compares a retried request with
// the first (this service's own /v2 face does; Adyen replays the first
// answer) would refuse a re-encrypted one. A retry that reaches another
// process encrypts anew. Entries are keyed by the idempotency key and a
// keyed hash of the card (never the card), hold only ciphertext, and go
// after sealedFor or when the cache is full, oldest first.
type sealedCards struct {
	mu      sync.Mutex
	hashKey [32]byte
	entries map[string]sealedEntry
}

type sealedEntry struct {
	m  methodDetails
	at time.Time
}

const (
	sealedFor = time.Hour
	sealedMax = 1024
)

func newSealedCards() *sealedCards {
	s := &sealedCards{entries: map[string]sealedEntry{}}
	if _, err := rand.Read(s.hashKey[:]); err != nil {
		panic("adyencheckout: no randomness: " + err.Error())
	}
	return s
}

func (s *sealedCards) id(key string, c cards.Card) string {
	h := hmac.New(sha256.New, s.hashKey[:])
	for _, f := range []string{key, c.Number, c.ExpiryMonth, c.ExpiryYear, c.CVC, c.HolderName} {
		h.Write([]byte(f))
		h.Write([]byte{0})
	}
	return string(h.Sum(nil))
}

// get is the fields sealed under id, if sealed within sealedFor of now.
func (s *sealedCards) get(id string, now time.Time) (methodDetails, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[id]
	if !ok || now.Sub(e.at) > sealedFor || e.at.After(now.Add(cse.MaxSkew)) {
		return methodDetails{}, false
	}
	return e.m, true
}

func (s *sealedCards) put(id string, m methodDetails, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.entries) >= sealedMax {
		oldest, at := "", time.Time{}
		for k, e := range s.entries {
			if now.Sub(e.at) > sealedFor {
				delete(s.entries, k)
				continue
			}
			if oldest == "" || e.at.Before(at) {
				oldest, at = k, e.at
			}
		}
		if len(s.entries) >= sealedMax {
			delete(s.entries, oldest)
		}
	}
	s.entries[id] = sealedEntry{m: m, at: now}
}

// Package sessiondata seals small values into opaque, tamper-evident tokens:
// a checkout session's sessionData and the paymentData of a pending action.
//
// Format: "e1.<purpose-tag>.<key id>.<base64url(nonce || AES-256-GCM ciphertext)>".
// The payload is encrypted and authenticated (AEAD) with a key derived from
// the signing key by HKDF-SHA256 with the key id in its info, and the
// additional data binds the format, purpose and key id: a token made for one
// purpose never opens as another, and nobody without the key can read or
// change what it holds (account, payment and session ids stay out of sight:
// base64-decoding a token shows random bytes). Nonces are random (96 bits),
// so one key must seal fewer than 2^32 tokens; keys rotate far sooner.
//
// Older tokens were signed, not encrypted ("<purpose>.<key id>.<base64url
// JSON>.<base64url HMAC-SHA256>", and before key ids "<purpose>.<payload>.<mac>").
// Open still verifies them with the same keys, so sessions and pending
// payments live at the upgrade finish normally; a session lives at most
// checkout.MaxExpiry (24 h), so they age out on their own and Seal never
// makes them again: the signed path can go one day after the upgrade. Verifying a signed token grants nothing an encrypted one would
// not: its ids were already in its holder's hands.
//
// Keys rotate: a Signer holds several keys, seals with the first and opens a
// token with the key its key id names, so tokens sealed before a rotation
// stay valid for their whole life. A key id is derived from the key (an HMAC
// of a constant), so operators list keys and never name them.
//
// Where keys come from (see LoadKeys and checkout.FromDeps): deployed stacks
// read a SecureString parameter (its name in SESSION_SIGNING_SECRET_PARAM) at
// cold start and re-read it every RefreshEvery, so the secret never appears in
// the function's configuration; local runs (the embedded store, or the local
// environment) use SESSION_SIGNING_SECRET when set, else a random key created
// once and persisted in the store, so tokens survive restarts of `make run`.
package sessiondata

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paygate/paygate/shared/store"
)

// EnvVar holds the signing keys themselves, for local runs and tools only;
// deployed stacks set ParamEnvVar instead.
const EnvVar = "SESSION_SIGNING_SECRET"

// ParamEnvVar names the SSM SecureString parameter that holds the signing
// keys in deployed stacks.
const ParamEnvVar = "SESSION_SIGNING_SECRET_PARAM"

// MinSecretLen is the shortest accepted key, in bytes.
const MinSecretLen = 32

// RefreshEvery is how often a Signer with a source re-reads its keys; an
// unknown key id triggers a re-read sooner, at most every minRefresh.
const (
	RefreshEvery = 10 * time.Minute
	minRefresh   = time.Minute
)

// ErrInvalid is returned for any token that does not verify: malformed,
// tampered, signed with an unknown key or made for another purpose.
var ErrInvalid = errors.New("sessiondata: invalid token")

// keyring is one immutable set of keys: the first signs.
type keyring struct {
	ids    []string
	byID   map[string][]byte
	aead   map[string]cipher.AEAD // by key id: the sealing key derived from it
	fp     []byte                 // the fingerprint key, derived from the first key
	loaded time.Time
}

// Signer seals with its first key and opens with any of its keys.
type Signer struct {
	ring atomic.Pointer[keyring]

	// Optional source of fresh keys (nil: the keys never change).
	source func(context.Context) ([][]byte, error)
	now    func() time.Time
	mu     sync.Mutex // one refresh at a time
	tried  time.Time  // last refresh attempt, under mu
}

// NewKeyring builds a signer that signs with keys[0] and opens tokens signed
// with any of keys.
func NewKeyring(keys [][]byte) (*Signer, error) {
	s := &Signer{now: time.Now}
	r, err := newKeyring(keys, s.now())
	if err != nil {
		return nil, err
	}
	s.ring.Store(r)
	return s, nil
}

// KeysFrom is a key source for NewRefreshing over a parameter reader: each
// call reads the parameter name and parses its keys (ParseKeys).
func KeysFrom(read func(context.Context) (string, error), name string) func(context.Context) ([][]byte, error) {
	return func(ctx context.Context) ([][]byte, error) {
		value, err := read(ctx)
		if err != nil {
			return nil, err
		}
		keys, err := ParseKeys(value)
		if err != nil {
			return nil, fmt.Errorf("sessiondata: %s: %w", name, err)
		}
		return keys, nil
	}
}

// NewRefreshing builds a signer from source (called now, and again every
// RefreshEvery or when a token names a key it does not hold); a failed
// re-read keeps the keys it has. now may be nil (time.Now).
func NewRefreshing(ctx context.Context, source func(context.Context) ([][]byte, error), now func() time.Time) (*Signer, error) {
	if now == nil {
		now = time.Now
	}
	keys, err := source(ctx)
	if err != nil {
		return nil, err
	}
	s := &Signer{source: source, now: now}
	r, err := newKeyring(keys, now())
	if err != nil {
		return nil, err
	}
	s.ring.Store(r)
	s.tried = r.loaded
	return s, nil
}

func newKeyring(keys [][]byte, now time.Time) (*keyring, error) {
	if len(keys) == 0 {
		return nil, errors.New("sessiondata: no signing key")
	}
	r := &keyring{byID: map[string][]byte{}, aead: map[string]cipher.AEAD{}, loaded: now}
	for _, k := range keys {
		if len(k) < MinSecretLen {
			return nil, fmt.Errorf("sessiondata: every signing key needs at least %d bytes", MinSecretLen)
		}
		id := KeyID(k)
		if _, dup := r.byID[id]; dup {
			continue
		}
		a, err := newAEAD(k, id)
		if err != nil {
			return nil, err
		}
		r.ids = append(r.ids, id)
		r.byID[id] = bytes.Clone(k)
		r.aead[id] = a
	}
	fp, err := hkdf.Key(sha256.New, keys[0], nil, "paygate fingerprint", 32)
	if err != nil {
		return nil, err
	}
	r.fp = fp
	return r, nil
}

// newAEAD derives key's token-sealing key (HKDF-SHA256, bound to the key id)
// and builds AES-256-GCM over it with random nonces.
func newAEAD(key []byte, id string) (cipher.AEAD, error) {
	dk, err := hkdf.Key(sha256.New, key, nil, "paygate sessiondata aead "+id, 32)
	if err != nil {
		return nil, err
	}
	b, err := aes.NewCipher(dk)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCMWithRandomNonce(b)
}

// KeyID is the id tokens carry for key: 8 base64url characters of an HMAC
// of a constant, which tells nothing about the key.
func KeyID(key []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("paygate sessiondata key id"))
	return enc.EncodeToString(m.Sum(nil)[:6])
}

// keys returns the current keyring, re-reading the source first when it is
// older than RefreshEvery, or (unknown) a token named a key not in it.
func (s *Signer) keys(unknown bool) *keyring {
	r := s.ring.Load()
	if s.source == nil {
		return r
	}
	now := s.now()
	if now.Sub(r.loaded) < RefreshEvery && !unknown {
		return r
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r = s.ring.Load(); now.Sub(s.tried) < minRefresh {
		return r // refreshed (or tried) a moment ago
	}
	s.tried = now
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	keys, err := s.source(ctx)
	if err != nil {
		return r // keep what works; the next attempt is a minute away
	}
	fresh, err := newKeyring(keys, now)
	if err != nil {
		return r
	}
	s.ring.Store(fresh)
	return fresh
}

func mac(key []byte, purpose string, payload []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write(payload)
	return m.Sum(nil)
}

var enc = base64.RawURLEncoding

// sealedPrefix marks an encrypted token; signed tokens start with their
// purpose, which is never "e1".
const sealedPrefix = "e1"

// Seal returns the encrypted token of v for purpose (a short lowercase tag).
func (s *Signer) Seal(purpose string, v any) (string, error) {
	payload, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	r := s.keys(false)
	id := r.ids[0]
	head := sealedPrefix + "." + purpose + "." + id
	return head + "." + enc.EncodeToString(r.aead[id].Seal(nil, nil, payload, []byte(head))), nil
}

// Open verifies token for purpose and decodes its payload into v. It opens
// encrypted tokens and, for sessions live at the upgrade, the older signed
// ones (see the package comment).
func (s *Signer) Open(purpose, token string, v any) error {
	parts := strings.Split(token, ".")
	var payload []byte
	var ok bool
	if len(parts) == 4 && parts[0] == sealedPrefix {
		payload, ok = s.openSealed(purpose, parts)
	} else {
		payload, ok = s.openSigned(purpose, parts)
	}
	if !ok || json.Unmarshal(payload, v) != nil {
		return ErrInvalid
	}
	return nil
}

// keysFor returns the keyring that should hold key id, re-reading the source
// once when it does not (perhaps a key added since this instance started).
func (s *Signer) keysFor(id string) *keyring {
	r := s.keys(false)
	if _, ok := r.byID[id]; id != "" && !ok {
		r = s.keys(true)
	}
	return r
}

func (s *Signer) openSealed(purpose string, parts []string) ([]byte, bool) {
	if parts[1] != purpose {
		return nil, false
	}
	box, err := enc.DecodeString(parts[3])
	if err != nil {
		return nil, false
	}
	a, known := s.keysFor(parts[2]).aead[parts[2]]
	if !known {
		return nil, false
	}
	payload, err := a.Open(nil, nil, box, []byte(strings.Join(parts[:3], ".")))
	return payload, err == nil
}

// openSigned verifies a signed token: "<purpose>.<key id>.<payload>.<mac>",
// or from before key ids "<purpose>.<payload>.<mac>", which opens with any
// key held.
func (s *Signer) openSigned(purpose string, parts []string) ([]byte, bool) {
	if len(parts) < 3 || len(parts) > 4 || parts[0] != purpose {
		return nil, false
	}
	id := ""
	if len(parts) == 4 {
		id, parts = parts[1], []string{parts[0], parts[2], parts[3]}
	}
	payload, err1 := enc.DecodeString(parts[1])
	sig, err2 := enc.DecodeString(parts[2])
	if err1 != nil || err2 != nil {
		return nil, false
	}
	r := s.keysFor(id)
	ok := false
	if id != "" {
		key, known := r.byID[id]
		ok = known && hmac.Equal(sig, mac(key, purpose, payload))
	} else {
		for _, k := range r.ids {
			ok = ok || hmac.Equal(sig, mac(r.byID[k], purpose, payload))
		}
	}
	return payload, ok
}

// Fingerprint is a keyed hash of parts for purpose: equal inputs give equal
// fingerprints under the current signing key, and nobody without the key can
// tell which inputs made one (it keeps card numbers out of storage keys).
// It changes when the signing key rotates.
func (s *Signer) Fingerprint(purpose string, parts ...string) string {
	m := hmac.New(sha256.New, s.keys(false).fp)
	for _, p := range append([]string{purpose}, parts...) {
		m.Write(binary.BigEndian.AppendUint32(nil, uint32(len(p)))) // length-prefixed: no two lists hash alike
		m.Write([]byte(p))
	}
	return enc.EncodeToString(m.Sum(nil)[:18])
}

// ParseKeys reads a list of keys, the signing key first, separated by commas
// or white space: each is hex when it is valid hex, else its raw bytes.
func ParseKeys(value string) ([][]byte, error) {
	var keys [][]byte
	for _, f := range strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' || r == '\r' }) {
		b := []byte(f)
		if h, err := hex.DecodeString(f); err == nil {
			b = h
		}
		if len(b) < MinSecretLen {
			return nil, fmt.Errorf("every signing key needs at least %d bytes (e.g. 64 hex characters)", MinSecretLen)
		}
		keys = append(keys, b)
	}
	if len(keys) == 0 {
		return nil, errors.New("no signing key")
	}
	return keys, nil
}

// secretKey is where a local run keeps its generated secret.
var secretKey = store.Key{Table: store.TableAccounts, PK: "config#session-signing-secret", SK: "secret"}

// LoadKeys returns the signing keys of a run without a parameter store:
// SESSION_SIGNING_SECRET when set (see ParseKeys); else, when
// allowGenerated, the store's persisted random key (created on first use
// with put-if-absent, so concurrent starters agree); else an error.
func LoadKeys(ctx context.Context, st store.Store, getenv func(string) string, allowGenerated bool) ([][]byte, error) {
	if getenv != nil {
		if v := getenv(EnvVar); v != "" {
			keys, err := ParseKeys(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", EnvVar, err)
			}
			return keys, nil
		}
	}
	if !allowGenerated {
		return nil, fmt.Errorf("neither %s nor %s is set", ParamEnvVar, EnvVar)
	}
	it, err := st.Get(ctx, secretKey)
	if err == nil {
		return [][]byte{it.Data}, nil
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
		return [][]byte{cf.Current.Data}, nil // another process created it first
	}
	if err != nil {
		return nil, err
	}
	return [][]byte{fresh}, nil
}

package cse_test

import (
	"context"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/cse"
	"github.com/paygate/paygate/shared/domain/cse/localkeys"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
)

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }
func newClock() *clock               { return &clock{now: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)} }
func payload(c cse.Card) []byte      { b, _ := json.Marshal(c); return b }
func testCard(gen time.Time) cse.Card {
	return cse.Card{Number: "4111 1111 1111 1111", HolderName: "J Smith", CVC: "737", ExpiryMonth: "03", ExpiryYear: "2030", GenerationTime: cse.FormatGenerationTime(gen)}
}
func memStore(t *testing.T) store.Store { return openStore(t) }

func openStore(t *testing.T) store.Store {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), nil)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return st
}

func newRing(t *testing.T, c *clock) *cse.Keyring {
	t.Helper()
	r := cse.NewKeyring(memStore(t), localkeys.New(t.TempDir()), c.Now)
	_, err := r.Rotate(context.Background(), 7*24*time.Hour)
	require.NoError(t, err)
	return r
}

func current(t *testing.T, r *cse.Keyring) cse.Key {
	t.Helper()
	keys, err := r.Active(context.Background())
	require.NoError(t, err)
	require.NotEmpty(t, keys)
	return keys[0]
}

// encrypt is what a merchant does with a key from GET /keys.
func encrypt(t *testing.T, k cse.Key, c cse.Card) string {
	t.Helper()
	s, err := cse.Encrypt(k.KID, k.PublicKey(), payload(c))
	require.NoError(t, err)
	return s
}

// TestOpenRoundTrip: a card encrypted with the current key opens, with its
// header as Adyen's format has it.
func TestOpenRoundTrip(t *testing.T) {
	c := newClock()
	r := newRing(t, c)
	k := current(t, r)
	jwe := encrypt(t, k, testCard(c.Now().Add(-time.Minute)))

	hdr := map[string]any{}
	raw, err := base64.RawURLEncoding.DecodeString(strings.Split(jwe, ".")[0])
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &hdr))
	assert.Equal(t, map[string]any{"alg": "RSA-OAEP-256", "enc": "A256CBC-HS512", "version": "1", "kid": k.KID}, hdr)

	got, err := r.Open(context.Background(), jwe)
	require.NoError(t, err)
	assert.Equal(t, "4111111111111111", got.Number)
	assert.Equal(t, "737", got.CVC)
	assert.Equal(t, "03", got.ExpiryMonth)
	assert.Equal(t, "2030", got.ExpiryYear)
	assert.Equal(t, "J Smith", got.HolderName)
	assert.Regexp(t, `^10001\|[0-9A-F]{512}$`, k.AdyenKey())
	assert.Regexp(t, `^cse_[0-9a-f]{20}$`, k.KID)
}

// TestOpenRefusesEveryBadJWEAlike: each way a JWE can be wrong is the one
// ErrUndecryptable, nothing more specific.
func TestOpenRefusesEveryBadJWEAlike(t *testing.T) {
	c := newClock()
	r := newRing(t, c)
	k := current(t, r)
	good := encrypt(t, k, testCard(c.Now()))
	parts := strings.Split(good, ".")
	flip := func(i int) string {
		p := append([]string{}, parts...)
		b, _ := base64.RawURLEncoding.DecodeString(p[i])
		b[len(b)/2] ^= 1
		p[i] = base64.RawURLEncoding.EncodeToString(b)
		return strings.Join(p, ".")
	}
	header := func(h map[string]any) string {
		b, _ := json.Marshal(h)
		p := append([]string{}, parts...)
		p[0] = base64.RawURLEncoding.EncodeToString(b)
		return strings.Join(p, ".")
	}
	other := newRing(t, c) // another platform's key
	withKey := func(alg jose.KeyAlgorithm, enc jose.ContentEncryption, hdr map[jose.HeaderKey]any) string {
		opts := &jose.EncrypterOptions{ExtraHeaders: hdr}
		e, err := jose.NewEncrypter(enc, jose.Recipient{Algorithm: alg, Key: k.PublicKey(), KeyID: k.KID}, opts)
		require.NoError(t, err)
		obj, err := e.Encrypt(payload(testCard(c.Now())))
		require.NoError(t, err)
		s, err := obj.CompactSerialize()
		require.NoError(t, err)
		return s
	}
	cases := map[string]string{
		"empty":                    "",
		"not a JWE":                "test_4111111111111111",
		"four parts":               strings.Join(parts[:4], "."),
		"tampered header":          flip(0),
		"tampered encrypted key":   flip(1),
		"tampered iv":              flip(2),
		"tampered ciphertext":      flip(3),
		"tampered tag":             flip(4),
		"unknown kid":              header(map[string]any{"alg": "RSA-OAEP-256", "enc": "A256CBC-HS512", "version": "1", "kid": "cse_00000000000000000000"}),
		"kid removed (in the tag)": header(map[string]any{"alg": "RSA-OAEP-256", "enc": "A256CBC-HS512", "version": "1"}),
		"no version":               withKey(jose.RSA_OAEP_256, jose.A256CBC_HS512, nil),
		"version 2":                withKey(jose.RSA_OAEP_256, jose.A256CBC_HS512, map[jose.HeaderKey]any{"version": "2"}),
		"RSA-OAEP (SHA-1)":         withKey(jose.RSA_OAEP, jose.A256CBC_HS512, map[jose.HeaderKey]any{"version": "1"}),
		"A256GCM":                  withKey(jose.RSA_OAEP_256, jose.A256GCM, map[jose.HeaderKey]any{"version": "1"}),
		"compressed":               withKey(jose.RSA_OAEP_256, jose.A256CBC_HS512, map[jose.HeaderKey]any{"version": "1", "zip": "DEF"}),
		"another platform's key":   must(cse.Encrypt(k.KID, current(t, other).PublicKey(), payload(testCard(c.Now())))),
		"generated 25 hours ago":   encrypt(t, k, testCard(c.Now().Add(-25*time.Hour))),
		"generated in the future":  encrypt(t, k, testCard(c.Now().Add(time.Hour))),
		"no generationtime":        encrypt(t, k, cse.Card{Number: "4111111111111111", ExpiryMonth: "03", ExpiryYear: "2030"}),
	}
	for name, jwe := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := r.Open(context.Background(), jwe)
			assert.ErrorIs(t, err, cse.ErrUndecryptable)
			assert.Equal(t, cse.ErrUndecryptable.Error(), err.Error(), "no detail beyond the one error")
		})
	}
	// A payload that is not JSON, sealed properly.
	s, err := cse.Encrypt(k.KID, k.PublicKey(), []byte("4111111111111111"))
	require.NoError(t, err)
	_, err = r.Open(context.Background(), s)
	assert.ErrorIs(t, err, cse.ErrUndecryptable)

	// 23 hours old still opens.
	_, err = r.Open(context.Background(), encrypt(t, k, testCard(c.Now().Add(-23*time.Hour))))
	assert.NoError(t, err)
}

// TestRotation: the new key is current at once; the old one still opens
// until its grace ends, then it is refused like an unknown key.
func TestRotation(t *testing.T) {
	c := newClock()
	st := memStore(t)
	backend := localkeys.New(t.TempDir())
	a := cse.NewKeyring(st, backend, c.Now)
	b := cse.NewKeyring(st, backend, c.Now) // another function instance
	ctx := context.Background()
	old, err := a.Rotate(ctx, 48*time.Hour)
	require.NoError(t, err)
	oldJWE := encrypt(t, old, testCard(c.Now()))
	_, err = b.Open(ctx, oldJWE) // b caches the ring with the old key only
	require.NoError(t, err)

	c.Add(time.Hour)
	nu, err := a.Rotate(ctx, 48*time.Hour)
	require.NoError(t, err)
	keys, err := b.Active(ctx)
	require.NoError(t, err)
	require.Len(t, keys, 2)
	assert.Equal(t, nu.KID, keys[0].KID, "the new key is listed first at once")
	assert.Nil(t, keys[0].ExpiresAt)
	require.NotNil(t, keys[1].ExpiresAt)
	assert.Equal(t, c.Now().Add(48*time.Hour), *keys[1].ExpiresAt)

	// b's cached ring does not know the new kid: it reads again.
	c2 := cse.NewKeyring(st, backend, c.Now)
	_, err = c2.Open(ctx, oldJWE)
	require.NoError(t, err)
	_, err = b.Open(ctx, encrypt(t, nu, testCard(c.Now())))
	require.NoError(t, err, "a key rotated in elsewhere decrypts at once")
	_, err = b.Open(ctx, encrypt(t, old, testCard(c.Now())))
	require.NoError(t, err, "the old key still decrypts during its grace")

	c.Add(48 * time.Hour)
	_, err = b.Open(ctx, encrypt(t, old, testCard(c.Now())))
	assert.ErrorIs(t, err, cse.ErrUndecryptable, "an expired key decrypts no more")
	keys, err = b.Active(ctx)
	require.NoError(t, err)
	require.Len(t, keys, 1)
	assert.Equal(t, nu.KID, keys[0].KID)

	// Sealing uses the current key.
	sealed, err := b.Seal(ctx, cse.Card{Number: "4111111111111111", ExpiryMonth: "03", ExpiryYear: "2030", Cryptogram: "AgAAAAAABk4DWZ4C28yUQAAAAAA="})
	require.NoError(t, err)
	got, err := b.Open(ctx, sealed)
	require.NoError(t, err)
	assert.Equal(t, "AgAAAAAABk4DWZ4C28yUQAAAAAA=", got.Cryptogram)
	raw, _ := base64.RawURLEncoding.DecodeString(strings.Split(sealed, ".")[0])
	assert.Contains(t, string(raw), nu.KID)
}

// TestConcurrentRotationsKeepEveryKey: rotations racing each other all land,
// one after the other.
func TestConcurrentRotationsKeepEveryKey(t *testing.T) {
	c := newClock()
	st := memStore(t)
	backend := localkeys.New(t.TempDir())
	var wg sync.WaitGroup
	kids := make([]string, 4)
	for i := range kids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := cse.NewKeyring(st, backend, c.Now).Rotate(context.Background(), time.Hour)
			assert.NoError(t, err)
			kids[i] = k.KID
		}()
	}
	wg.Wait()
	keys, err := cse.NewKeyring(st, backend, c.Now).Active(context.Background())
	require.NoError(t, err)
	var got []string
	current := 0
	for _, k := range keys {
		got = append(got, k.KID)
		if k.ExpiresAt == nil {
			current++
		}
	}
	assert.ElementsMatch(t, kids, got)
	assert.Equal(t, 1, current, "exactly one current key")
}

// failing is a backend whose service is down.
type failing struct{ cse.Backend }

func (failing) DecryptKey(context.Context, string, []byte) ([]byte, error) {
	return nil, errors.New("connection refused")
}

// TestBackendDownIsNotUndecryptable: a backend that cannot be asked is not
// the merchant's fault (a 503 for the caller, not a 400).
func TestBackendDownIsNotUndecryptable(t *testing.T) {
	c := newClock()
	st := memStore(t)
	backend := localkeys.New(t.TempDir())
	r := cse.NewKeyring(st, backend, c.Now)
	k, err := r.Rotate(context.Background(), time.Hour)
	require.NoError(t, err)
	down := cse.NewKeyring(st, failing{backend}, c.Now)
	_, err = down.Open(context.Background(), encrypt(t, k, testCard(c.Now())))
	require.Error(t, err)
	assert.NotErrorIs(t, err, cse.ErrUndecryptable)
	assert.Contains(t, err.Error(), "connection refused")
}

func BenchmarkOpen(b *testing.B) {
	c := newClock()
	st, err := boltstore.Open(filepath.Join(b.TempDir(), "store.db"), nil)
	require.NoError(b, err)
	defer st.Close()
	r := cse.NewKeyring(st, localkeys.New(b.TempDir()), c.Now)
	k, err := r.Rotate(context.Background(), time.Hour)
	require.NoError(b, err)
	jwe, err := cse.Encrypt(k.KID, k.PublicKey(), payload(testCard(c.Now())))
	require.NoError(b, err)
	b.ResetTimer()
	for b.Loop() {
		if _, err := r.Open(context.Background(), jwe); err != nil {
			b.Fatal(err)
		}
	}
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}

// adyenLibraryJWE encrypts the way Adyen's own client-side-encryption
// libraries do (adyen-android's JSONWebEncryptor): the key is the
// "Exponent|Modulus" string of GET /keys' adyen_key, and the protected
// header is alg, enc and version, with no kid.
func adyenLibraryJWE(t *testing.T, adyenKey string, c cse.Card) string {
	t.Helper()
	parts := strings.Split(adyenKey, "|")
	require.Len(t, parts, 2)
	e, ok := new(big.Int).SetString(parts[0], 16)
	require.True(t, ok)
	n, ok := new(big.Int).SetString(parts[1], 16)
	require.True(t, ok)
	pub := &rsa.PublicKey{N: n, E: int(e.Int64())}
	enc, err := jose.NewEncrypter(jose.A256CBC_HS512, jose.Recipient{Algorithm: jose.RSA_OAEP_256, Key: pub},
		&jose.EncrypterOptions{ExtraHeaders: map[jose.HeaderKey]any{"version": "1"}})
	require.NoError(t, err)
	obj, err := enc.Encrypt(payload(c))
	require.NoError(t, err)
	s, err := obj.CompactSerialize()
	require.NoError(t, err)
	hdr := map[string]any{}
	raw, err := base64.RawURLEncoding.DecodeString(strings.Split(s, ".")[0])
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &hdr))
	require.Equal(t, map[string]any{"alg": "RSA-OAEP-256", "enc": "A256CBC-HS512", "version": "1"}, hdr)
	return s
}

// counting counts a backend's DecryptKey calls.
type counting struct {
	cse.Backend
	calls atomic.Int64
}

func (c *counting) DecryptKey(ctx context.Context, ref string, key []byte) ([]byte, error) {
	c.calls.Add(1)
	return c.Backend.DecryptKey(ctx, ref, key)
}

// TestOpenWithoutKid: a JWE from Adyen's libraries (no kid) opens with the
// current key in one backend call; one made with the previous key during
// its grace opens too (one more call), and no longer once the grace ends;
// one for a key the platform does not hold is the one ErrUndecryptable.
func TestOpenWithoutKid(t *testing.T) {
	c := newClock()
	b := &counting{Backend: localkeys.New(t.TempDir())}
	r := cse.NewKeyring(memStore(t), b, c.Now)
	old, err := r.Rotate(context.Background(), time.Hour)
	require.NoError(t, err)
	ctx := context.Background()

	got, err := r.Open(ctx, adyenLibraryJWE(t, old.AdyenKey(), testCard(c.Now())))
	require.NoError(t, err)
	assert.Equal(t, "4111111111111111", got.Number)
	assert.Equal(t, int64(1), b.calls.Load(), "the current key: one call")

	byOld := adyenLibraryJWE(t, old.AdyenKey(), testCard(c.Now()))
	_, err = r.Rotate(ctx, time.Hour)
	require.NoError(t, err)
	b.calls.Store(0)
	_, err = r.Open(ctx, byOld)
	require.NoError(t, err, "the previous key opens during its grace")
	assert.Equal(t, int64(2), b.calls.Load(), "the current key, then the previous one")

	_, err = r.Open(ctx, adyenLibraryJWE(t, current(t, newRing(t, c)).AdyenKey(), testCard(c.Now())))
	assert.ErrorIs(t, err, cse.ErrUndecryptable, "another platform's key")

	c.Add(2 * time.Hour)
	_, err = r.Open(ctx, byOld)
	assert.ErrorIs(t, err, cse.ErrUndecryptable, "the previous key after its grace")
	assert.Equal(t, cse.ErrUndecryptable.Error(), err.Error())
}

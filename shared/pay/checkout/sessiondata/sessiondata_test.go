package sessiondata

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/store/boltstore"
)

type claims struct {
	ID    string `json:"id"`
	Value int64  `json:"v"`
}

var (
	keyA = []byte(strings.Repeat("a", 32))
	keyB = []byte(strings.Repeat("b", 32))
	keyC = []byte(strings.Repeat("c", 32))
)

// signed builds a token in the format before encryption (purpose.kid.payload.mac,
// or without kid the one before key ids), as sessions live at the upgrade hold.
func signed(t *testing.T, key []byte, purpose string, v any, withKeyID bool) string {
	t.Helper()
	payload, err := json.Marshal(v)
	require.NoError(t, err)
	parts := []string{purpose}
	if withKeyID {
		parts = append(parts, KeyID(key))
	}
	parts = append(parts, enc.EncodeToString(payload), enc.EncodeToString(mac(key, purpose, payload)))
	return strings.Join(parts, ".")
}

func TestSealOpen(t *testing.T) {
	s, err := NewSigner([]byte(strings.Repeat("k", 32)))
	require.NoError(t, err)
	tok, err := s.Seal("cs", claims{"abc", 100})
	require.NoError(t, err)
	parts := strings.Split(tok, ".")
	require.Len(t, parts, 4)
	assert.Equal(t, []string{"e1", "cs", s.SigningKeyID()}, parts[:3], "the token names its format, purpose and key")
	var got claims
	require.NoError(t, s.Open("cs", tok, &got))
	assert.Equal(t, claims{"abc", 100}, got)
	again, err := s.Seal("cs", claims{"abc", 100})
	require.NoError(t, err)
	assert.NotEqual(t, tok, again, "random nonces: equal payloads give unrelated tokens")

	// Another purpose, another key, a changed box, key id or header: invalid.
	assert.ErrorIs(t, s.Open("pd", tok, &got), ErrInvalid)
	assert.ErrorIs(t, s.Open("pd", strings.Join([]string{"e1", "pd", parts[2], parts[3]}, "."), &got), ErrInvalid,
		"the purpose is bound by the AEAD, not only compared")
	other, _ := NewSigner([]byte(strings.Repeat("x", 32)))
	assert.ErrorIs(t, other.Open("cs", tok, &got), ErrInvalid)
	forged, _ := other.Seal("cs", claims{"abc", 1})
	fparts := strings.Split(forged, ".")
	assert.ErrorIs(t, s.Open("cs", strings.Join([]string{"e1", "cs", parts[2], fparts[3]}, "."), &got), ErrInvalid)
	assert.ErrorIs(t, s.Open("cs", strings.Join([]string{"e1", "cs", fparts[2], parts[3]}, "."), &got), ErrInvalid)
	assert.ErrorIs(t, s.Open("cs", tok+"x", &got), ErrInvalid)
	assert.ErrorIs(t, s.Open("cs", "garbage", &got), ErrInvalid)
	assert.ErrorIs(t, s.Open("cs", "cs.a.b.c.d", &got), ErrInvalid)
	assert.ErrorIs(t, s.Open("cs", "e1.cs.a.b.c", &got), ErrInvalid)

	_, err = NewSigner([]byte("short"))
	assert.Error(t, err)
	_, err = NewKeyring(nil)
	assert.Error(t, err)
}

// TestSealedTokensHideTheirPayload: base64-decoding any part of a token shows
// none of what it holds, and flipping any bit of it fails.
func TestSealedTokensHideTheirPayload(t *testing.T) {
	s, err := NewSigner(keyA)
	require.NoError(t, err)
	const secretID = "0190c0de-acct-7000-8000-5ec12e7ab1e5"
	tok, err := s.Seal("cs", claims{secretID, 4242})
	require.NoError(t, err)
	for _, part := range strings.Split(tok, ".") {
		for _, e := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.StdEncoding} {
			b, err := e.DecodeString(part)
			if err != nil {
				continue
			}
			assert.NotContains(t, string(b), secretID)
			assert.NotContains(t, string(b), "acct")
			assert.NotContains(t, string(b), "4242")
		}
	}
	assert.NotContains(t, tok, secretID)
	var got claims
	for i := range len(tok) {
		b := []byte(tok)
		b[i] ^= 1
		assert.ErrorIs(t, s.Open("cs", string(b), &got), ErrInvalid, "byte %d flipped", i)
	}
}

// TestSignedTokensStillOpen: tokens signed before encryption (with and
// without key id) keep verifying with the keys held, and tampering still
// fails, so sessions live at the upgrade finish.
func TestSignedTokensStillOpen(t *testing.T) {
	s, err := NewKeyring([][]byte{keyB, keyA})
	require.NoError(t, err)
	for _, withID := range []bool{true, false} {
		old := signed(t, keyA, "cs", claims{"s1", 7}, withID)
		var got claims
		require.NoError(t, s.Open("cs", old, &got))
		assert.Equal(t, claims{"s1", 7}, got)
		assert.ErrorIs(t, s.Open("pd", old, &got), ErrInvalid)
		parts := strings.Split(old, ".")
		payload := parts[len(parts)-2]
		changed, _ := json.Marshal(claims{"s2", 7})
		parts[len(parts)-2] = enc.EncodeToString(changed)
		assert.ErrorIs(t, s.Open("cs", strings.Join(parts, "."), &got), ErrInvalid, "a changed payload fails")
		parts[len(parts)-2] = payload
		parts[len(parts)-1] = parts[len(parts)-1][1:]
		assert.ErrorIs(t, s.Open("cs", strings.Join(parts, "."), &got), ErrInvalid, "a changed mac fails")
		retired, _ := NewKeyring([][]byte{keyC})
		assert.ErrorIs(t, retired.Open("cs", old, &got), ErrInvalid)
	}
}

func TestFingerprint(t *testing.T) {
	a, _ := NewKeyring([][]byte{keyA, keyB})
	a2, _ := NewKeyring([][]byte{keyA})
	b, _ := NewKeyring([][]byte{keyB})
	f := a.Fingerprint("card", "acct", "4111111111111111", "03", "2030")
	assert.Equal(t, f, a2.Fingerprint("card", "acct", "4111111111111111", "03", "2030"), "stable under the same signing key")
	assert.NotEqual(t, f, b.Fingerprint("card", "acct", "4111111111111111", "03", "2030"), "keyed")
	assert.NotEqual(t, f, a.Fingerprint("card", "acct", "4111111111111111", "04", "2030"))
	assert.NotEqual(t, f, a.Fingerprint("card", "acct", "41111111111111110", "3", "2030"), "parts are length-prefixed")
	assert.NotEqual(t, f, a.Fingerprint("other", "acct", "4111111111111111", "03", "2030"))
	assert.NotContains(t, f, "1111")
}

// TestRotation: a keyring signs with its first key and opens tokens of every
// key it holds, so adding a key in front keeps live tokens valid; removing a
// key ends its tokens.
func TestRotation(t *testing.T) {
	before, err := NewKeyring([][]byte{keyA})
	require.NoError(t, err)
	old, err := before.Seal("cs", claims{"s1", 1})
	require.NoError(t, err)

	after, err := NewKeyring([][]byte{keyB, keyA})
	require.NoError(t, err)
	assert.Equal(t, KeyID(keyB), after.SigningKeyID())
	assert.NotEqual(t, KeyID(keyA), KeyID(keyB))
	var got claims
	require.NoError(t, after.Open("cs", old, &got), "a token of the previous key still opens")
	fresh, err := after.Seal("cs", claims{"s2", 2})
	require.NoError(t, err)
	assert.Contains(t, fresh, ".cs."+KeyID(keyB)+".")
	assert.ErrorIs(t, before.Open("cs", fresh, &got), ErrInvalid, "the old keyring does not hold the new key")

	retired, err := NewKeyring([][]byte{keyB})
	require.NoError(t, err)
	require.NoError(t, retired.Open("cs", fresh, &got))
	assert.ErrorIs(t, retired.Open("cs", old, &got), ErrInvalid, "a removed key's tokens end")

	// Tokens from before key ids (purpose.payload.mac) open with any key held.
	legacy := signed(t, keyA, "cs", claims{"s1", 1}, false)
	require.NoError(t, after.Open("cs", legacy, &got))
	assert.Equal(t, "s1", got.ID)
	assert.ErrorIs(t, retired.Open("cs", legacy, &got), ErrInvalid)
}

// TestRefreshing: a running instance learns of a key added to the parameter
// when a token names it (at most once a minute), and re-reads the parameter
// every RefreshEvery, so the new key also becomes its signing key; a failing
// source keeps the keys it has.
func TestRefreshing(t *testing.T) {
	var mu sync.Mutex
	param := [][]byte{keyA}
	var reads atomic.Int32
	fail := atomic.Bool{}
	source := func(context.Context) ([][]byte, error) {
		reads.Add(1)
		if fail.Load() {
			return nil, errors.New("ssm down")
		}
		mu.Lock()
		defer mu.Unlock()
		return param, nil
	}
	now := time.Now()
	var clockMu sync.Mutex
	clock := func() time.Time { clockMu.Lock(); defer clockMu.Unlock(); return now }
	advance := func(d time.Duration) { clockMu.Lock(); now = now.Add(d); clockMu.Unlock() }

	warm, err := NewRefreshing(context.Background(), source, clock)
	require.NoError(t, err)
	require.EqualValues(t, 1, reads.Load())

	// Rotation: B goes in front; a new instance signs with B.
	mu.Lock()
	param = [][]byte{keyB, keyA}
	mu.Unlock()
	cold, err := NewRefreshing(context.Background(), source, clock)
	require.NoError(t, err)
	tokB, err := cold.Seal("cs", claims{"b", 1})
	require.NoError(t, err)
	tokA, err := warm.Seal("cs", claims{"a", 1})
	require.NoError(t, err)
	var got claims
	require.NoError(t, cold.Open("cs", tokA, &got), "the new instance opens the old instance's tokens")
	advance(2 * time.Minute)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			var c claims
			assert.NoError(t, warm.Open("cs", tokB, &c), "the warm instance re-reads on an unknown key id")
		})
	}
	wg.Wait()
	assert.EqualValues(t, 3, reads.Load(), "one re-read for twenty requests")
	assert.Equal(t, KeyID(keyB), warm.SigningKeyID(), "the re-read also makes B its signing key")

	// A forged key id triggers at most one re-read a minute.
	forged := "e1.cs.zzzzzzzz." + strings.SplitN(tokB, ".", 4)[3]
	for range 5 {
		assert.ErrorIs(t, warm.Open("cs", forged, &got), ErrInvalid)
	}
	assert.EqualValues(t, 3, reads.Load())

	// The next rotation (C in front, A retired) reaches the instance by its
	// periodic re-read, without any token naming C.
	mu.Lock()
	param = [][]byte{keyC, keyB}
	mu.Unlock()
	advance(RefreshEvery - 2*time.Minute)
	assert.Equal(t, KeyID(keyB), warm.SigningKeyID(), "no re-read before RefreshEvery")
	advance(2 * time.Minute)
	assert.Equal(t, KeyID(keyC), warm.SigningKeyID(), "the periodic re-read makes C the signing key")
	assert.EqualValues(t, 4, reads.Load())
	assert.ErrorIs(t, warm.Open("cs", tokA, &got), ErrInvalid, "A was retired")

	fail.Store(true)
	advance(RefreshEvery)
	assert.Equal(t, KeyID(keyC), warm.SigningKeyID(), "a failed re-read keeps the keys")
	require.NoError(t, warm.Open("cs", tokB, &got))

	_, err = NewRefreshing(context.Background(), source, clock)
	assert.Error(t, err, "a cold start without keys fails fast")
}

func TestParseKeys(t *testing.T) {
	hexA, hexB := strings.Repeat("ab", 32), strings.Repeat("cd", 32)
	keys, err := ParseKeys(hexA + ", " + hexB + "\n")
	require.NoError(t, err)
	require.Len(t, keys, 2)
	assert.Len(t, keys[0], 32)
	assert.Equal(t, byte(0xab), keys[0][0])
	assert.Equal(t, byte(0xcd), keys[1][0])
	_, err = ParseKeys(hexA + ",short")
	assert.Error(t, err)
	_, err = ParseKeys(" , ")
	assert.Error(t, err)
}

func TestLoadKeys(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "s.db"), time.Now)
	require.NoError(t, err)
	defer st.Close()
	ctx := context.Background()
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }

	_, err = LoadKeys(ctx, st, getenv, false)
	assert.Error(t, err, "deployed functions need the parameter")

	a, err := LoadKeys(ctx, st, getenv, true)
	require.NoError(t, err)
	b, err := LoadKeys(ctx, st, getenv, true)
	require.NoError(t, err)
	assert.Equal(t, a, b, "the generated key is persisted")
	require.Len(t, a, 1)
	assert.Len(t, a[0], 32)

	env[EnvVar] = strings.Repeat("ab", 32) + "," + strings.Repeat("cd", 32)
	c, err := LoadKeys(ctx, st, getenv, false)
	require.NoError(t, err)
	assert.Len(t, c, 2)
	s, err := LoadSecret(ctx, st, getenv, false)
	require.NoError(t, err)
	assert.Equal(t, c[0], s)
	env[EnvVar] = "tooshort"
	_, err = LoadKeys(ctx, st, getenv, true)
	assert.Error(t, err)
}

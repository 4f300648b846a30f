package sessiondata

import (
	"context"
	"path/filepath"
	"strings"
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

func TestSealOpen(t *testing.T) {
	s, err := NewSigner([]byte(strings.Repeat("k", 32)))
	require.NoError(t, err)
	tok, err := s.Seal("cs", claims{"abc", 100})
	require.NoError(t, err)
	var got claims
	require.NoError(t, s.Open("cs", tok, &got))
	assert.Equal(t, claims{"abc", 100}, got)

	// Another purpose, another key, a changed payload or signature: invalid.
	assert.ErrorIs(t, s.Open("pd", tok, &got), ErrInvalid)
	other, _ := NewSigner([]byte(strings.Repeat("x", 32)))
	assert.ErrorIs(t, other.Open("cs", tok, &got), ErrInvalid)
	forged, _ := other.Seal("cs", claims{"abc", 1})
	parts := strings.Split(tok, ".")
	fparts := strings.Split(forged, ".")
	assert.ErrorIs(t, s.Open("cs", parts[0]+"."+fparts[1]+"."+parts[2], &got), ErrInvalid)
	assert.ErrorIs(t, s.Open("cs", tok+"x", &got), ErrInvalid)
	assert.ErrorIs(t, s.Open("cs", "garbage", &got), ErrInvalid)

	_, err = NewSigner([]byte("short"))
	assert.Error(t, err)
}

func TestLoadSecret(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "s.db"), time.Now)
	require.NoError(t, err)
	defer st.Close()
	ctx := context.Background()
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }

	_, err = LoadSecret(ctx, st, getenv, false)
	assert.Error(t, err, "deployed functions need the variable")

	a, err := LoadSecret(ctx, st, getenv, true)
	require.NoError(t, err)
	b, err := LoadSecret(ctx, st, getenv, true)
	require.NoError(t, err)
	assert.Equal(t, a, b, "the generated secret is persisted")
	assert.Len(t, a, 32)

	env[EnvVar] = strings.Repeat("ab", 32)
	c, err := LoadSecret(ctx, st, getenv, false)
	require.NoError(t, err)
	assert.Len(t, c, 32)
	env[EnvVar] = "tooshort"
	_, err = LoadSecret(ctx, st, getenv, true)
	assert.Error(t, err)
}

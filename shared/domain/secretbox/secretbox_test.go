package secretbox_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/secretbox"
	"github.com/paygate/paygate/shared/domain/secretbox/filekeys"
)

// counting counts a backend's unwraps.
type counting struct {
	secretbox.DataKeys
	unwraps atomic.Int32
}

func (c *counting) Unwrap(ctx context.Context, wrapped []byte) ([]byte, error) {
	c.unwraps.Add(1)
	return c.DataKeys.Unwrap(ctx, wrapped)
}

// TestSealAndOpen: a sealed secret holds no clear text, opens to itself,
// and each Seal draws its own data key; an altered value, a value of another
// key file or a clear one does not open.
func TestSealAndOpen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	box := secretbox.New(filekeys.New(dir), nil)
	secret := []byte("whsec_0123456789abcdefghijklmnopqrstuv")
	a, err := box.Seal(ctx, secret)
	require.NoError(t, err)
	b, err := box.Seal(ctx, secret)
	require.NoError(t, err)
	assert.True(t, secretbox.IsSealed(a))
	assert.NotContains(t, a, string(secret))
	assert.NotContains(t, a, "0123456789abcdef")
	assert.NotEqual(t, strings.Split(a, ".")[2], strings.Split(b, ".")[2], "a data key per seal")
	for _, s := range []string{a, b} {
		got, err := box.Open(ctx, s)
		require.NoError(t, err)
		assert.Equal(t, secret, got)
	}
	again, err := secretbox.New(filekeys.New(dir), nil).Open(ctx, a)
	require.NoError(t, err, "the key file is read back by the next process")
	assert.Equal(t, secret, again)

	_, err = secretbox.New(filekeys.New(t.TempDir()), nil).Open(ctx, a)
	assert.ErrorIs(t, err, secretbox.ErrUnopenable, "another data directory's key")
	last := a[:len(a)-3] + string(rune(a[len(a)-3]^1)) + a[len(a)-2:]
	parts := strings.Split(a, ".")
	for name, s := range map[string]string{
		"altered ciphertext":  last,
		"another backend":     strings.Replace(a, ".file.", ".kms.", 1),
		"another wrapped key": parts[0] + "." + parts[1] + "." + strings.Split(b, ".")[2] + "." + parts[3],
		"clear":               string(secret),
		"truncated":           parts[0] + "." + parts[1] + "." + parts[2],
		"empty":               "",
	} {
		_, err := box.Open(ctx, s)
		assert.ErrorIs(t, err, secretbox.ErrUnopenable, name)
	}
	assert.False(t, secretbox.IsSealed(string(secret)))
}

// TestOpenCachesDataKeys: opening one secret again and again unwraps its
// data key once while it is cached, from many goroutines too, and again
// after CacheFor.
func TestOpenCachesDataKeys(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	keys := &counting{DataKeys: filekeys.New(t.TempDir())}
	box := secretbox.New(keys, clock)
	sealed, err := box.Seal(ctx, []byte("JBSWY3DPEHPK3PXP"))
	require.NoError(t, err)
	_, err = box.Open(ctx, sealed)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := box.Open(ctx, sealed)
			assert.NoError(t, err)
			assert.Equal(t, "JBSWY3DPEHPK3PXP", string(got))
		}()
	}
	wg.Wait()
	assert.Equal(t, int32(1), keys.unwraps.Load(), "one unwrap while cached")
	mu.Lock()
	now = now.Add(secretbox.CacheFor)
	mu.Unlock()
	_, err = box.Open(ctx, sealed)
	require.NoError(t, err)
	assert.Equal(t, int32(2), keys.unwraps.Load(), "unwrapped again once the cache lapsed")
}

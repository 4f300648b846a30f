package auth_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/auth"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
)

func newKeys(t *testing.T) (*accounts.Repo, *auth.Keys) {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), nil)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	repo := accounts.NewRepo(st, nil)
	return repo, auth.NewKeys(st, repo, nil)
}

func newAccount(t *testing.T, repo *accounts.Repo, name string, mode accounts.Mode) string {
	t.Helper()
	a, err := repo.Create(context.Background(), accounts.NewAccount{Name: name, Mode: mode, Country: "NL", Email: "keys@example.com"})
	require.NoError(t, err)
	return a.ID
}

const clientSecret = "ck_test_" + "ImportedClientKeyForTests000000"

func TestImportClientKey(t *testing.T) {
	repo, keys := newKeys(t)
	ctx := context.Background()
	acct := newAccount(t, repo, "Importer", accounts.Test)
	origins := []string{"https://shop.example"}

	k, err := keys.ImportClient(ctx, acct, clientSecret, origins, "sample client")
	require.NoError(t, err)
	assert.Equal(t, auth.Client, k.Kind)
	assert.Equal(t, origins, k.AllowedOrigins)
	assert.Equal(t, "ck_test_Impo", k.Prefix)

	got, err := keys.Authenticate(ctx, clientSecret)
	require.NoError(t, err)
	assert.Equal(t, acct, got.AccountID)
	assert.Equal(t, auth.Client, got.Kind)
	assert.Equal(t, origins, got.AllowedOrigins)

	again, err := keys.ImportClient(ctx, acct, clientSecret, []string{"https://other.example"}, "again")
	require.NoError(t, err, "re-importing is a no-op")
	assert.Equal(t, k.ID, again.ID)
	assert.Equal(t, origins, again.AllowedOrigins, "the first import's origins stay")

	listed, err := keys.List(ctx, acct)
	require.NoError(t, err)
	assert.Len(t, listed, 1)
}

func TestImportClientKeyRefusals(t *testing.T) {
	repo, keys := newKeys(t)
	ctx := context.Background()
	acct := newAccount(t, repo, "Importer", accounts.Test)
	live := newAccount(t, repo, "Live One", accounts.Live)
	other := newAccount(t, repo, "Other", accounts.Test)
	origins := []string{"https://shop.example"}

	cases := []struct {
		name, account, secret string
		origins               []string
		param                 string
	}{
		{"secret key prefix", acct, "sk_test_" + "ImportedClientKeyForTests000000", origins, "key"},
		{"live prefix", acct, "ck_live_" + "ImportedClientKeyForTests000000", origins, "key"},
		{"too short", acct, "ck_test_short", origins, "key"},
		{"no origins", acct, clientSecret, nil, "allowed_origins"},
		{"bad origin", acct, clientSecret, []string{"http://shop.example"}, "allowed_origins"},
		{"origin with path", acct, clientSecret, []string{"https://shop.example/pay"}, "allowed_origins"},
		{"live account", live, clientSecret, origins, "mode"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := keys.ImportClient(ctx, c.account, c.secret, c.origins, "x")
			require.Error(t, err)
			e := apierr.As(err)
			assert.Equal(t, apierr.Invalid, e.Kind)
			assert.Equal(t, c.param, e.Param)
		})
	}
	_, err := keys.Authenticate(ctx, clientSecret)
	require.Error(t, err, "no refused import registered the key")

	_, err = keys.ImportClient(ctx, acct, clientSecret, origins, "first")
	require.NoError(t, err)
	_, err = keys.ImportClient(ctx, other, clientSecret, origins, "second")
	require.Error(t, err)
	assert.Equal(t, "key_taken", apierr.As(err).Code.Name())
}

func TestImportStillTakesOnlySecretKeys(t *testing.T) {
	repo, keys := newKeys(t)
	ctx := context.Background()
	acct := newAccount(t, repo, "Importer", accounts.Test)
	_, err := keys.Import(ctx, acct, clientSecret, "x")
	require.Error(t, err)
	assert.Equal(t, "key", apierr.As(err).Param)
	k, err := keys.Import(ctx, acct, "sk_test_"+"ImportedSecretKeyForTests000000", "x")
	require.NoError(t, err)
	assert.Equal(t, auth.Secret, k.Kind)
	assert.Empty(t, k.AllowedOrigins)
}

// TestAWarmKeyStopsAtOnce holds Authenticate's reuse of a decoding
// (store.Decoded) to what it promises: a key authenticated many times is
// refused on the very next request once revoked or rolled, and what a caller
// does to the key it got does not reach the next caller.
func TestAWarmKeyStopsAtOnce(t *testing.T) {
	ctx := context.Background()
	repo, keys := newKeys(t)
	acct := newAccount(t, repo, "Warm", accounts.Test)

	k, secret, err := keys.Create(ctx, acct, auth.NewKey{Kind: auth.Client, AllowedOrigins: []string{"https://shop.example"}})
	require.NoError(t, err)
	for range 3 {
		got, err := keys.Authenticate(ctx, secret)
		require.NoError(t, err)
		assert.Equal(t, []string{"https://shop.example"}, got.AllowedOrigins)
		got.AllowedOrigins[0] = "https://changed.example" // a caller's change stays the caller's
		got.Name = "changed"
	}
	_, err = keys.Revoke(ctx, acct, k.ID)
	require.NoError(t, err)
	_, err = keys.Authenticate(ctx, secret)
	assert.ErrorIs(t, err, auth.ErrInvalidKey, "revoked after warm reads")

	k, secret, err = keys.Create(ctx, acct, auth.NewKey{Name: "to roll"})
	require.NoError(t, err)
	got, err := keys.Authenticate(ctx, secret)
	require.NoError(t, err)
	assert.Equal(t, "to roll", got.Name)
	_, _, err = keys.Roll(ctx, acct, k.ID, time.Now().Add(-time.Second))
	require.NoError(t, err)
	_, err = keys.Authenticate(ctx, secret)
	assert.ErrorIs(t, err, auth.ErrInvalidKey, "rolled with an expiry in the past after a warm read")

	// The account's read reuses a decoding the same way: a change is seen
	// at once, and a caller's change to its metadata stays the caller's.
	a, err := repo.Get(ctx, acct)
	require.NoError(t, err)
	a.Metadata["changed"] = "by a caller"
	_, err = repo.Update(ctx, acct, func(a *accounts.Account) ([]store.Op, error) {
		a.Name = "Renamed"
		return nil, nil
	})
	require.NoError(t, err)
	a, err = repo.Get(ctx, acct)
	require.NoError(t, err)
	assert.Equal(t, "Renamed", a.Name)
	assert.NotContains(t, a.Metadata, "changed")
}

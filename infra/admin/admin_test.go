package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/auth"
	"github.com/paygate/paygate/shared/platform/version"
	"github.com/paygate/paygate/shared/store/boltstore"
)

type result struct {
	code           int
	stdout, stderr string
}

func cli(t *testing.T, getenv func(string) string, args ...string) result {
	t.Helper()
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut, getenv)
	return result{code, out.String(), errOut.String()}
}

// embedded runs a command on the embedded store in dir and requires success.
func embedded(t *testing.T, dir string, args ...string) result {
	t.Helper()
	r := cli(t, nil, append(args, "--data-dir", dir)...)
	require.Equal(t, 0, r.code, "admin %v: %s", args, r.stderr)
	return r
}

func decode[T any](t *testing.T, r result) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &v), r.stdout)
	return v
}

type createdKey struct {
	Key    keyView `json:"key"`
	Secret string  `json:"secret"`
}

// authenticate checks a secret against the store as the API would, with the
// CLI's store closed as it is between commands.
func authenticate(t *testing.T, dir, secret string) (*auth.Key, error) {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(dir, "store.db"), nil)
	require.NoError(t, err)
	defer st.Close()
	return app.WithStore(st, nil, nil, nil).Keys.Authenticate(context.Background(), secret)
}

func TestAccountsAndKeys(t *testing.T) {
	dir := t.TempDir()
	created := decode[struct {
		Account struct {
			ID, Name, Mode, Country, Email, MerchantAccount string
			DefaultVersion                                  string `json:"default_version"`
		} `json:"account"`
		createdKey
	}](t, embedded(t, dir, "accounts", "create", "--name", "Shop", "--country", "KZ", "--email", "ops@shop.example", "--merchant-account", "shop_kz", "--json"))
	acct := created.Account.ID
	require.NotEmpty(t, acct)
	require.Equal(t, "Shop", created.Account.Name)
	require.Equal(t, "test", created.Account.Mode)
	require.Equal(t, "KZ", created.Account.Country)
	require.Equal(t, version.Current, created.Account.DefaultVersion)
	require.True(t, strings.HasPrefix(created.Secret, "sk_test_"), created.Secret)
	k, err := authenticate(t, dir, created.Secret)
	require.NoError(t, err)
	require.Equal(t, acct, k.AccountID)
	require.Equal(t, created.Key.ID, k.ID)

	show := embedded(t, dir, "accounts", "show", "--account", acct)
	require.Contains(t, show.stdout, acct)
	require.Contains(t, show.stdout, "shop_kz")
	require.NotContains(t, show.stdout, created.Secret)

	// keys create: secret and client keys; the secret is printed, and works.
	text := embedded(t, dir, "keys", "create", "--account", acct, "--name", "backend")
	require.Contains(t, text.stdout, "shown only now")
	second := strings.Fields(text.stdout[strings.Index(text.stdout, "secret: "):])[1]
	_, err = authenticate(t, dir, second)
	require.NoError(t, err)
	client := decode[createdKey](t, embedded(t, dir, "keys", "create", "--account", acct, "--kind", "client",
		"--origin", "https://shop.example", "--origin", "http://localhost:3000", "--json"))
	require.True(t, strings.HasPrefix(client.Secret, "ck_test_"))
	require.Equal(t, []string{"https://shop.example", "http://localhost:3000"}, client.Key.AllowedOrigins)
	ck, err := authenticate(t, dir, client.Secret)
	require.NoError(t, err)
	require.Equal(t, auth.Client, ck.Kind)

	// keys list shows every key, never a secret or a hash.
	secrets := []string{created.Secret, second, client.Secret}
	for _, args := range [][]string{{"keys", "list", "--account", acct}, {"keys", "list", "--account", acct, "--json"}} {
		out := embedded(t, dir, args...).stdout
		for _, s := range secrets {
			require.NotContains(t, out, s)
			require.NotContains(t, out, auth.Hash(s))
		}
		require.NotContains(t, strings.ToLower(out), "hash")
		require.Contains(t, out, created.Key.ID)
		require.Contains(t, out, client.Key.ID)
	}
	list := decode[struct{ Keys []keyView }](t, embedded(t, dir, "keys", "list", "--account", acct, "--json"))
	require.Len(t, list.Keys, 3)

	// roll with a grace period: old and new both work until it ends.
	rolled := decode[struct {
		createdKey
		Old keyView `json:"old_key"`
	}](t, embedded(t, dir, "keys", "roll", "--account", acct, "--key", created.Key.ID, "--expires-in", "1h", "--json"))
	require.Equal(t, created.Key.ID, rolled.Old.ID)
	require.NotNil(t, rolled.Old.ExpiresAt)
	require.WithinDuration(t, time.Now().Add(time.Hour), *rolled.Old.ExpiresAt, time.Minute)
	_, err = authenticate(t, dir, created.Secret)
	require.NoError(t, err, "the rolled key works during its grace period")
	_, err = authenticate(t, dir, rolled.Secret)
	require.NoError(t, err)

	// set-version reaches the keys, so requests without a version header get
	// it. (It runs before any key has expired: auth.Keys.SetDefaultVersion
	// fails on an account whose expired key's lookup record has lapsed.)
	embedded(t, dir, "accounts", "set-version", "--account", acct, "--version", "2023-09-01")
	k, err = authenticate(t, dir, rolled.Secret)
	require.NoError(t, err)
	require.Equal(t, "2023-09-01", k.DefaultVersion)
	r := cli(t, nil, "accounts", "set-version", "--data-dir", dir, "--account", acct, "--version", "2019-01-01")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, version.List())
	show = embedded(t, dir, "accounts", "show", "--account", acct, "--json")
	require.Contains(t, show.stdout, `"default_version": "2023-09-01"`)

	// roll with an expiry in the past: the old key stops at once.
	again := decode[createdKey](t, embedded(t, dir, "keys", "roll", "--account", acct, "--key", rolled.Key.ID, "--expires-at", "2000-01-01T00:00:00Z", "--json"))
	_, err = authenticate(t, dir, rolled.Secret)
	require.Error(t, err)
	_, err = authenticate(t, dir, again.Secret)
	require.NoError(t, err)
	r = cli(t, nil, "keys", "roll", "--data-dir", dir, "--account", acct, "--key", rolled.Key.ID)
	require.Equal(t, 1, r.code, "an expired key cannot be rolled")

	// revoke: the secret stops working at once; the listing keeps the key.
	embedded(t, dir, "keys", "revoke", "--account", acct, "--key", client.Key.ID)
	_, err = authenticate(t, dir, client.Secret)
	require.Error(t, err)
	list = decode[struct{ Keys []keyView }](t, embedded(t, dir, "keys", "list", "--account", acct, "--json"))
	require.Len(t, list.Keys, 5)
	for _, k := range list.Keys {
		if k.ID == client.Key.ID {
			require.NotNil(t, k.RevokedAt)
		}
	}
}

func TestAccountsCreateTextShowsSecretOnce(t *testing.T) {
	dir := t.TempDir()
	r := embedded(t, dir, "accounts", "create", "--name", "Live shop", "--mode", "live")
	require.Contains(t, r.stdout, "mode:             live")
	i := strings.Index(r.stdout, "secret: ")
	require.GreaterOrEqual(t, i, 0, r.stdout)
	secret := strings.Fields(r.stdout[i:])[1]
	require.True(t, strings.HasPrefix(secret, "sk_live_"), secret)
	require.Contains(t, r.stdout, "shown only now")
	k, err := authenticate(t, dir, secret)
	require.NoError(t, err)
	// Nothing shows the secret again.
	r = embedded(t, dir, "keys", "list", "--account", k.AccountID)
	require.NotContains(t, r.stdout, secret)
}

func TestStoreFlagsBeforeCommandAndFromEnv(t *testing.T) {
	dir := t.TempDir()
	r := cli(t, nil, "--data-dir", dir, "--json", "accounts", "create", "--name", "A")
	require.Equal(t, 0, r.code, r.stderr)
	id := decode[struct{ Account struct{ ID string } }](t, r).Account.ID
	env := func(k string) string {
		if k == "DATA_DIR" {
			return dir
		}
		return ""
	}
	r = cli(t, env, "accounts", "show", "--account", id)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, id)
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	cases := [][]string{
		{},
		{"accounts"},
		{"nope", "create"},
		{"accounts", "create"},
		{"accounts", "create", "--name", "x", "--mode", "demo"},
		{"accounts", "show", "--account", "a", "extra"},
		{"accounts", "set-version", "--account", "a"},
		{"keys", "list", "--bogus"},
		{"keys", "create", "--account", "a", "--kind", "public"},
		{"keys", "create", "--account", "a", "--kind", "client"},
		{"keys", "create", "--account", "a", "--origin", "https://x.example"},
		{"keys", "roll", "--account", "a"},
		{"keys", "roll", "--account", "a", "--key", "k", "--expires-in", "1h", "--expires-at", "2030-01-01T00:00:00Z"},
		{"keys", "roll", "--account", "a", "--key", "k", "--expires-at", "tomorrow"},
		{"keys", "roll", "--account", "a", "--key", "k", "--expires-in", "soon"},
		{"tables", "create"},
		{"--store", "mongo", "keys", "list", "--account", "a"},
		{"--store", "dynamodb", "keys", "list", "--account", "a"}, // no tables named
	}
	for _, args := range cases {
		r := cli(t, nil, append([]string{"--data-dir", dir}, args...)...)
		require.Equal(t, 2, r.code, "admin %v: %s", args, r.stderr)
		require.Contains(t, r.stderr, "usage", "admin %v", args)
		require.Empty(t, r.stdout, "admin %v", args)
	}
	r := cli(t, nil, "help")
	require.Equal(t, 0, r.code)
	for name := range commands {
		require.Contains(t, r.stdout, name)
	}
}

func TestNotFoundIsFailure(t *testing.T) {
	dir := t.TempDir()
	r := cli(t, nil, "accounts", "show", "--data-dir", dir, "--account", "missing")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "no such account")
	r = cli(t, nil, "keys", "revoke", "--data-dir", dir, "--account", "missing", "--key", "key_x")
	require.Equal(t, 1, r.code)
}

func TestStoreInUse(t *testing.T) {
	dir := t.TempDir()
	st, err := boltstore.Open(filepath.Join(dir, "store.db"), nil)
	require.NoError(t, err)
	defer st.Close()
	r := cli(t, nil, "accounts", "show", "--data-dir", dir, "--account", "a")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "in use by another process")
}

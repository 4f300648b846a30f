package sample

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/auth"
	"github.com/paygate/paygate/shared/store/boltstore"
)

func TestEnsureAccountIsIdempotent(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), nil)
	require.NoError(t, err)
	defer st.Close()
	d := app.WithStore(st, nil, nil, nil)
	ctx := context.Background()
	id, err := EnsureAccount(ctx, d.Accounts, d.Keys)
	require.NoError(t, err)
	again, err := EnsureAccount(ctx, d.Accounts, d.Keys)
	require.NoError(t, err)
	assert.Equal(t, id, again, "a second run reuses the account")
	k, err := d.Keys.Authenticate(ctx, Key)
	require.NoError(t, err)
	assert.Equal(t, id, k.AccountID)
	assert.Equal(t, "test", string(k.Mode))
	ck, err := d.Keys.Authenticate(ctx, ClientKey)
	require.NoError(t, err)
	assert.Equal(t, id, ck.AccountID)
	assert.Equal(t, auth.Client, ck.Kind)
	assert.Equal(t, []string{ClientOrigin}, ck.AllowedOrigins)
	assert.Equal(t, MerchantAccount, ck.MerchantAccount)
	listed, err := d.Keys.List(ctx, id)
	require.NoError(t, err)
	assert.Len(t, listed, 2, "a second run imports no key twice")
}

func write(t *testing.T, dir, name, body string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600))
}

func TestExpectationsMatchFilesOneToOne(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a-get.json", `{}`)
	write(t, dir, ExpectationsFile, `{"a-get.json": {"function": "AFunction", "status": 200}}`)
	exp, err := Expectations(dir)
	require.NoError(t, err)
	assert.Equal(t, map[string]Expectation{"a-get.json": {Function: "AFunction", Status: 200}}, exp)

	write(t, dir, "b-get.json", `{}`)
	_, err = Expectations(dir)
	assert.ErrorContains(t, err, "b-get.json has no entry")

	write(t, dir, ExpectationsFile, `{"a-get.json": {"function": "AFunction", "status": 200},
		"b-get.json": {"function": "BFunction", "status": 200}, "gone.json": {"function": "AFunction", "status": 200}}`)
	_, err = Expectations(dir)
	assert.ErrorContains(t, err, "gone.json, which does not exist")

	write(t, dir, ExpectationsFile, `{"a-get.json": {"function": "AFunction", "stauts": 200}}`)
	_, err = Expectations(dir)
	assert.Error(t, err, "a misspelt field is refused")
}

func TestEnsureAccountAddsClientKeyToOlderStores(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), nil)
	require.NoError(t, err)
	defer st.Close()
	d := app.WithStore(st, nil, nil, nil)
	ctx := context.Background()
	// A store seeded before the client key existed: the account and Key only.
	a, err := d.Accounts.Create(ctx, accounts.NewAccount{Name: AccountName, Mode: accounts.Test, Country: "NL"})
	require.NoError(t, err)
	_, err = d.Keys.Import(ctx, a.ID, Key, "sample events")
	require.NoError(t, err)
	_, err = d.Keys.Authenticate(ctx, ClientKey)
	require.Error(t, err)

	id, err := EnsureAccount(ctx, d.Accounts, d.Keys)
	require.NoError(t, err)
	assert.Equal(t, a.ID, id)
	ck, err := d.Keys.Authenticate(ctx, ClientKey)
	require.NoError(t, err)
	assert.Equal(t, a.ID, ck.AccountID)
}

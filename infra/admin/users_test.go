package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/dashboard"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// signIn checks a dashboard password against the store, with the CLI's
// store closed as it is between commands.
func signIn(t *testing.T, dir, email, password string) error {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(dir, "store.db"), nil)
	require.NoError(t, err)
	defer st.Close()
	d := app.WithStore(st, nil, nil, nil)
	_, _, err = dashboard.New(dashboard.Config{Store: st, Accounts: d.Accounts, Keys: d.Keys, Idem: d.Idem}).
		SignIn(context.Background(), dashboard.SignInInput{Email: email, Password: password, Address: "192.0.2.1"})
	return err
}

func TestDashboardUsers(t *testing.T) {
	dir := t.TempDir()
	acct := decode[struct {
		Account struct{ ID string } `json:"account"`
	}](t, embedded(t, dir, "accounts", "create", "--name", "Reseller", "--json")).Account.ID

	created := decode[newUserOut](t, embedded(t, dir, "users", "create", "--account", acct, "--email", "Ops@Reseller.example",
		"--role", "developer", "--json"))
	require.Equal(t, "ops@reseller.example", created.User.Email)
	require.Equal(t, dashboard.Developer, created.User.Role)
	require.Len(t, created.Password, 20)
	require.NoError(t, signIn(t, dir, "ops@reseller.example", created.Password))

	given := embedded(t, dir, "users", "create", "--account", acct, "--email", "viewer@reseller.example", "--password", "a given long passphrase")
	require.NotContains(t, given.stdout, "a given long passphrase", "a given password is not echoed")
	require.NoError(t, signIn(t, dir, "viewer@reseller.example", "a given long passphrase"))

	require.NotEqual(t, 0, cli(t, nil, "users", "create", "--account", acct, "--email", "x@reseller.example", "--role", "admin", "--data-dir", dir).code)
	require.NotEqual(t, 0, cli(t, nil, "users", "create", "--account", acct, "--email", "ops@reseller.example", "--data-dir", dir).code, "taken")

	reset := decode[newUserOut](t, embedded(t, dir, "users", "password", "--email", "ops@reseller.example", "--json"))
	require.Equal(t, dashboard.ErrSignIn, signIn(t, dir, "ops@reseller.example", created.Password))
	require.NoError(t, signIn(t, dir, "ops@reseller.example", reset.Password))
}

func TestAccountsPair(t *testing.T) {
	dir := t.TempDir()
	type created struct {
		Account struct{ ID string } `json:"account"`
	}
	live := decode[created](t, embedded(t, dir, "accounts", "create", "--name", "Shop", "--mode", "live", "--json")).Account.ID
	test := decode[created](t, embedded(t, dir, "accounts", "create", "--name", "Shop sandbox", "--json")).Account.ID
	other := decode[created](t, embedded(t, dir, "accounts", "create", "--name", "Other", "--json")).Account.ID
	require.NotEqual(t, 0, cli(t, nil, "accounts", "pair", "--live", test, "--test", live, "--data-dir", dir).code, "modes swapped")
	out := decode[struct {
		Live, Test struct{ ID, Pair string }
	}](t, embedded(t, dir, "accounts", "pair", "--live", live, "--test", test, "--json"))
	require.Equal(t, test, out.Live.Pair)
	require.Equal(t, live, out.Test.Pair)
	require.NotEqual(t, 0, cli(t, nil, "accounts", "pair", "--live", live, "--test", other, "--data-dir", dir).code, "paired already")
}

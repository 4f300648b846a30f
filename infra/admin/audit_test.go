package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/dashboard"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// auditLog is an account's dashboard audit log, newest first, with the
// CLI's store closed as it is between commands.
func auditLog(t *testing.T, dir, account string) []dashboard.AuditEntry {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(dir, "store.db"), nil)
	require.NoError(t, err)
	defer st.Close()
	d := app.WithStore(st, nil, nil, nil)
	entries, _, err := dashboard.New(dashboard.Config{Store: st, Accounts: d.Accounts, Keys: d.Keys, Idem: d.Idem}).
		AuditLog(context.Background(), account, 100, "")
	require.NoError(t, err)
	return entries
}

// TestEveryUserAndKeyChangeIsAudited: each change the CLI makes to
// dashboard users and API keys is in the account's audit log (the one the
// dashboard's audit page shows), naming who ran it; a change refused
// writes nothing.
func TestEveryUserAndKeyChangeIsAudited(t *testing.T) {
	dir := t.TempDir()
	as := func(args ...string) result {
		t.Helper()
		r := cli(t, func(k string) string { return map[string]string{"ADMIN_OPERATOR": "alice"}[k] }, append(args, "--data-dir", dir)...)
		require.Equal(t, 0, r.code, "admin %v: %s", args, r.stderr)
		return r
	}
	type created struct {
		Account struct{ ID string } `json:"account"`
		createdKey
	}
	acct := decode[created](t, as("accounts", "create", "--name", "Shop", "--json"))
	live := decode[created](t, as("accounts", "create", "--name", "Shop live", "--mode", "live", "--json")).Account.ID
	as("accounts", "pair", "--live", live, "--test", acct.Account.ID)
	id := acct.Account.ID
	key := decode[createdKey](t, as("keys", "create", "--account", id, "--name", "backend", "--json"))
	as("keys", "roll", "--account", id, "--key", key.Key.ID, "--expires-in", "1h")
	as("keys", "revoke", "--account", id, "--key", key.Key.ID)
	as("accounts", "set-version", "--account", id, "--version", "2023-06-01")
	user := decode[newUserOut](t, as("users", "create", "--account", id, "--email", "ops@shop.example", "--role", "developer", "--json"))
	as("users", "password", "--email", "ops@shop.example")
	as("users", "role", "--email", "ops@shop.example", "--account", id, "--role", "viewer")
	as("users", "role", "--email", "ops@shop.example", "--account", live, "--role", "viewer")
	as("users", "role", "--email", "ops@shop.example", "--account", live, "--role", "none")
	require.NotEqual(t, 0, cli(t, nil, "users", "create", "--account", id, "--email", "ops@shop.example", "--data-dir", dir).code, "taken")

	var actions []string
	for _, e := range auditLog(t, dir, id) {
		actions = append([]string{e.Action}, actions...)
		assert.Equal(t, "alice", e.Email, e.Action)
		assert.EqualValues(t, "admin-cli", e.Role, e.Action)
		assert.Contains(t, e.Address, "admin CLI on ", e.Action)
		switch e.Action {
		case "user.create", "user.password":
			assert.Equal(t, user.User.ID, e.Target, e.Action)
		case "api_key.revoke", "api_key.roll":
			assert.Equal(t, key.Key.ID, e.Target, e.Action)
		}
	}
	assert.Equal(t, []string{"api_key.create", "api_key.create", "api_key.roll", "api_key.revoke", "account.default_version",
		"user.create", "user.password", "user.role"}, actions, "oldest first")
	var onLive []string
	for _, e := range auditLog(t, dir, live) {
		onLive = append([]string{e.Action + " " + e.Detail}, onLive...)
	}
	assert.Equal(t, []string{"api_key.create the account's first secret key, with the account",
		"user.role ops@shop.example is viewer on this account", "user.role ops@shop.example is none on this account"}, onLive)
}

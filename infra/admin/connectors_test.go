package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/dashboard"
	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/domain/secretbox"
	"github.com/paygate/paygate/shared/domain/secretbox/filekeys"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/connect"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
)

const (
	testAPIKey  = "AQEyhmfxK4-api-key-never-shown-0123456789"
	testHMACKey = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"
)

// keysEnv is an environment holding the connector's keys.
func keysEnv(name string) string {
	switch name {
	case "ADYEN_API_KEY":
		return testAPIKey
	case "ADYEN_HMAC_KEY":
		return testHMACKey
	}
	return ""
}

func newAccount(t *testing.T, dir string) string {
	t.Helper()
	return decode[struct {
		Account struct{ ID string } `json:"account"`
	}](t, embedded(t, dir, "accounts", "create", "--name", "Shop", "--json")).Account.ID
}

// TestConnectorsSetListRemove: set prints the connector's id and keeps its
// keys sealed (the functions open them: the directory reaches the
// connector); list and remove show no key; another account's id is
// refused; every change is audited.
func TestConnectorsSetListRemove(t *testing.T) {
	dir := t.TempDir()
	acct, other := newAccount(t, dir), newAccount(t, dir)
	jwk := filepath.Join(t.TempDir(), "key.json")
	require.NoError(t, os.WriteFile(jwk, []byte(`{"kty":"RSA","e":"AQAB","n":"sXch"}`+"\n"), 0o600))
	set := func(args ...string) result {
		return cli(t, keysEnv, append([]string{"connectors", "set", "--data-dir", dir, "--account", acct, "--kind", "adyen",
			"--merchant-account", "ShopECOM", "--api-key-env", "ADYEN_API_KEY", "--hmac-key-env", "ADYEN_HMAC_KEY"}, args...)...)
	}
	r := set("--mode", "live", "--url", "https://checkout-test.adyen.com/v71", "--encryption-key-file", jwk)
	require.Equal(t, 0, r.code, r.stderr)
	live := strings.TrimSpace(r.stdout)
	require.True(t, strings.HasPrefix(live, "conn_"), r.stdout)
	r = set("--mode", "test", "--url", "http://127.0.0.1:8081/v2", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	test := decode[struct{ Connector connectorView }](t, r).Connector
	require.Equal(t, "test", test.Mode)
	require.Equal(t, "http://127.0.0.1:8081/v2", test.URL)
	for _, out := range []string{r.stdout, r.stderr} {
		require.NotContains(t, out, testAPIKey)
		require.NotContains(t, out, testHMACKey)
	}

	// Listed without keys, in text and JSON.
	for _, args := range [][]string{{"connectors", "list", "--account", acct}, {"connectors", "list", "--account", acct, "--json"}} {
		r := embedded(t, dir, args...)
		require.Contains(t, r.stdout, live)
		require.Contains(t, r.stdout, test.ID)
		require.Contains(t, r.stdout, "ShopECOM")
		require.NotContains(t, r.stdout, testAPIKey)
		require.NotContains(t, r.stdout, testHMACKey)
		require.NotContains(t, r.stdout, secretbox.Prefix)
	}
	require.Contains(t, embedded(t, dir, "connectors", "list", "--account", other).stdout, "no connectors")

	// Stored sealed: no key in clear anywhere in the store's file; the
	// directory the functions use (the data directory's secret key) opens
	// them.
	raw, err := os.ReadFile(filepath.Join(dir, "store.db"))
	require.NoError(t, err)
	require.NotContains(t, string(raw), testAPIKey)
	require.NotContains(t, string(raw), testHMACKey)
	ctx := context.Background()
	withStore(t, dir, func(st store.Store) {
		box := secretbox.New(filekeys.New(filekeys.Dir(dir)), nil)
		c, hk, err := connectors.NewRepo(st, box, nil).NotificationKey(ctx, live)
		require.NoError(t, err)
		require.Equal(t, testHMACKey, hk)
		require.Equal(t, acct, c.Account)
		require.Equal(t, `{"kty":"RSA","e":"AQAB","n":"sXch"}`, c.EncryptionKey)
		id, p, err := connect.NewDirectory(st, box, nil, nil).CardConnector(ctx, acct, true)
		require.NoError(t, err)
		require.Equal(t, live, id)
		require.NotNil(t, p)
	})

	// Another account's connector is refused; remove keeps the record.
	r = cli(t, nil, "connectors", "remove", "--data-dir", dir, "--account", other, "--id", live)
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stderr, "has no connector")
	r = embedded(t, dir, "connectors", "remove", "--account", acct, "--id", live)
	require.Contains(t, r.stdout, "removed "+live)
	list := decode[struct{ Connectors []connectorView }](t, embedded(t, dir, "connectors", "list", "--account", acct, "--json")).Connectors
	require.Len(t, list, 2)
	require.Equal(t, test.ID, list[0].ID, "the current one first")
	require.Equal(t, live, list[1].ID)
	require.NotNil(t, list[1].RemovedAt)
	require.True(t, list[1].EncryptionKey)

	// Set again: the mode's connector is replaced.
	r = set("--mode", "test", "--url", "https://checkout-test.adyen.com/v71")
	require.Equal(t, 0, r.code, r.stderr)
	second := strings.TrimSpace(r.stdout)
	text := embedded(t, dir, "connectors", "list", "--account", acct).stdout
	require.Contains(t, text, "replaced by "+second)

	withStore(t, dir, func(st store.Store) {
		d := app.WithStore(st, nil, nil, nil)
		s := dashboard.New(dashboard.Config{Store: d.Store, Accounts: d.Accounts, Keys: d.Keys, Idem: d.Idem, Clock: d.Clock, Log: d.Log})
		entries, _, err := s.AuditLog(ctx, acct, 100, "")
		require.NoError(t, err)
		got := map[string]int{}
		for _, en := range entries {
			got[en.Action+" "+en.Target]++
			require.Equal(t, cliRole, en.Role)
			require.NotContains(t, en.Detail, testAPIKey)
		}
		require.Equal(t, 1, got["connector.set "+live], "%+v", entries)
		require.Equal(t, 1, got["connector.set "+test.ID])
		require.Equal(t, 1, got["connector.remove "+live])
	})
}

func withStore(t *testing.T, dir string, f func(st store.Store)) {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(dir, "store.db"), nil)
	require.NoError(t, err)
	defer st.Close()
	f(st)
}

func TestConnectorsSetRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	acct := newAccount(t, dir)
	base := []string{"connectors", "set", "--data-dir", dir, "--account", acct, "--merchant-account", "M",
		"--api-key-env", "ADYEN_API_KEY", "--hmac-key-env", "ADYEN_HMAC_KEY"}
	for name, c := range map[string]struct {
		env  func(string) string
		args []string
		want string
	}{
		"no api key":       {func(n string) string { return map[string]string{"ADYEN_HMAC_KEY": "AA"}[n] }, []string{"--mode", "test", "--url", "https://x.example/v71"}, "ADYEN_API_KEY"},
		"no hmac key":      {func(n string) string { return map[string]string{"ADYEN_API_KEY": "k"}[n] }, []string{"--mode", "test", "--url", "https://x.example/v71"}, "ADYEN_HMAC_KEY"},
		"hmac not hex":     {func(n string) string { return map[string]string{"ADYEN_API_KEY": "k", "ADYEN_HMAC_KEY": "zz"}[n] }, []string{"--mode", "test", "--url", "https://x.example/v71"}, "hex"},
		"http":             {keysEnv, []string{"--mode", "test", "--url", "http://x.example/v71"}, "--url"},
		"mode":             {keysEnv, []string{"--mode", "prod", "--url", "https://x.example/v71"}, "--mode"},
		"no mode":          {keysEnv, []string{"--url", "https://x.example/v71"}, "--mode"},
		"kind":             {keysEnv, []string{"--mode", "test", "--url", "https://x.example/v71", "--kind", "stripe"}, "--kind"},
		"no key file":      {keysEnv, []string{"--mode", "test", "--url", "https://x.example/v71", "--encryption-key-file", filepath.Join(dir, "none")}, "--encryption-key-file"},
		"key file not jwk": {keysEnv, []string{"--mode", "test", "--url", "https://x.example/v71", "--encryption-key-file", filepath.Join(dir, "store.db")}, "--encryption-key-file"},
	} {
		r := cli(t, c.env, append(base, c.args...)...)
		require.Equal(t, 2, r.code, "%s: %s", name, r.stderr)
		require.Contains(t, r.stderr, c.want, name)
		require.NotContains(t, r.stderr, testAPIKey, name)
		require.NotContains(t, r.stderr, testHMACKey, name)
	}
	r := cli(t, keysEnv, "connectors", "set", "--data-dir", dir, "--account", "acct_none", "--mode", "test", "--url", "https://x.example/v71",
		"--merchant-account", "M", "--api-key-env", "ADYEN_API_KEY", "--hmac-key-env", "ADYEN_HMAC_KEY")
	require.Equal(t, 1, r.code, "an unknown account: %s", r.stderr)
	require.Contains(t, embedded(t, dir, "connectors", "list", "--account", acct).stdout, "no connectors", "nothing was set")
}

// TestDocumentedConnectorCommandsRun runs docs/admin.md's card connector
// examples, line by line as a shell would (the exports, a command's output
// kept in a variable), on a fresh data directory with an account as $ID.
func TestDocumentedConnectorCommandsRun(t *testing.T) {
	page, err := os.ReadFile("../../docs/admin.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(page), "\n## Card connectors\n")
	require.True(t, ok, "docs/admin.md has a Card connectors section")
	_, block, ok := strings.Cut(section, "```console\n")
	require.True(t, ok)
	block, _, ok = strings.Cut(block, "```")
	require.True(t, ok)

	dir := t.TempDir()
	jwk := filepath.Join(t.TempDir(), "adyen-cse.jwk")
	require.NoError(t, os.WriteFile(jwk, []byte(`{"kty":"RSA","e":"AQAB","n":"sXch"}`), 0o600))
	vars := map[string]string{"ID": newAccount(t, dir)}
	getenv := func(k string) string { return vars[k] }
	ran := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		if i := strings.Index(line, "  #"); i >= 0 {
			line = line[:i]
		}
		words := strings.Fields(line)
		if words[0] == "export" {
			for _, w := range words[1:] {
				k, v, _ := strings.Cut(w, "=")
				vars[k] = v
			}
			continue
		}
		into := ""
		if k, cmd, ok := strings.Cut(line, "=$("); ok && !strings.Contains(k, " ") {
			into, words = k, strings.Fields(strings.TrimSuffix(cmd, ")"))
		}
		require.Equal(t, []string{"go", "run", "./infra/admin", "connectors"}, words[:4], line)
		args := []string{"--data-dir", dir}
		for _, w := range words[3:] {
			switch {
			case strings.HasPrefix(w, "$"):
				v, ok := vars[w[1:]]
				require.True(t, ok, "%s: %s is not set", line, w)
				w = v
			case w == "adyen-cse.jwk":
				w = jwk
			}
			args = append(args, w)
		}
		r := cli(t, getenv, args...)
		require.Equal(t, 0, r.code, "%s: %s", line, r.stderr)
		require.NotContains(t, r.stdout, vars["ADYEN_API_KEY"])
		require.NotContains(t, r.stdout, vars["ADYEN_HMAC_KEY"])
		if into != "" {
			vars[into] = strings.TrimSpace(r.stdout)
		}
		ran[words[4]]++
	}
	require.Equal(t, map[string]int{"set": 2, "list": 1, "remove": 1}, ran)
	list := decode[struct{ Connectors []connectorView }](t, embedded(t, dir, "connectors", "list", "--account", vars["ID"], "--json")).Connectors
	require.Len(t, list, 2)
	require.Equal(t, "live", list[0].Mode, "the live connector serves; the test one was removed")
	require.True(t, list[0].EncryptionKey)
	require.Equal(t, vars["CONN"], list[1].ID)
	require.NotNil(t, list[1].RemovedAt)
}

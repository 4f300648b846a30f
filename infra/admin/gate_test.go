package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/gate/prepaid"
)

func TestGateCatalogDepositsBalance(t *testing.T) {
	dir := t.TempDir()
	acct := decode[struct {
		Account struct{ ID string } `json:"account"`
	}](t, embedded(t, dir, "accounts", "create", "--name", "Reseller", "--json")).Account.ID

	demo := filepath.Join("..", "democatalog", "demo.json")
	r := embedded(t, dir, "catalog", "load", "--account", acct, "--file", demo)
	require.Contains(t, r.stdout, "13 products")
	r = embedded(t, dir, "catalog", "load", "--account", acct, "--file", demo, "--json")
	require.Contains(t, r.stdout, `"unchanged": 23`, "a second load writes nothing")

	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"categories":[],"products":[{"id":1}]}`), 0o600))
	r = cli(t, nil, "catalog", "load", "--account", acct, "--file", bad, "--data-dir", dir)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "products[0]")

	post := func(args ...string) result {
		return cli(t, nil, append([]string{"deposits", "post", "--account", acct, "--data-dir", dir}, args...)...)
	}
	r = post("--currency", "USD", "--amount", "100.00", "--ref", "BANK-123", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	first := decode[struct {
		Deposit prepaid.View `json:"deposit"`
		Created bool         `json:"created"`
	}](t, r)
	require.True(t, first.Created)
	require.Equal(t, prepaid.MethodBankWire, first.Deposit.Method)

	r = post("--currency", "USD", "--amount", "100.00", "--ref", "BANK-123")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "already posted")
	r = post("--currency", "USD", "--amount", "90.00", "--ref", "BANK-123")
	require.Equal(t, 1, r.code, "same reference, other amount")
	r = post("--currency", "EUR", "--amount", "5", "--ref", "SEPA-1", "--method", "manual")
	require.Equal(t, 0, r.code, r.stderr)

	for _, args := range [][]string{
		{"--currency", "USD", "--amount", "1.001", "--ref", "X"},
		{"--currency", "usdollar", "--amount", "1", "--ref", "X"},
		{"--currency", "USD", "--amount", "1"},
	} {
		require.Equal(t, 2, post(args...).code, args)
	}
	r = post("--currency", "USD", "--amount", "1", "--ref", "X", "--method", "cash")
	require.Equal(t, 1, r.code)

	r = embedded(t, dir, "balance", "show", "--account", acct)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	require.Len(t, lines, 3, r.stdout)
	require.Contains(t, lines[1], "EUR")
	require.Contains(t, lines[1], "5.00")
	require.Contains(t, lines[2], "USD")
	require.Contains(t, lines[2], "100.00")

	r = cli(t, nil, "balance", "show", "--account", "0190f3a2-b4c4-7d1e-8a00-00000000ffff", "--data-dir", dir)
	require.Equal(t, 1, r.code, "unknown account")
}

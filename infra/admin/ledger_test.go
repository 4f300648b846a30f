package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/store"
)

// TestLedgerCheck: the check passes on consistent books and fails (exit 1,
// naming the balance) on a counter planted behind the entries' back, for one
// account and for all.
func TestLedgerCheck(t *testing.T) {
	dir := t.TempDir()
	acct := decode[struct {
		Account struct{ ID string } `json:"account"`
	}](t, embedded(t, dir, "accounts", "create", "--name", "Merchant", "--json")).Account.ID

	e := &env{Getenv: func(string) string { return "" }, Store: "embedded", DataDir: dir}
	d, err := e.Deps(context.Background())
	require.NoError(t, err)
	var b ledger.Batch
	now := time.Now()
	b.Capture(ledger.Policy{SettlementDelay: time.Hour}, ledger.Capture{AccountID: acct, Currency: "EUR",
		Source: ledger.Source{Type: ledger.SourceTransaction, ID: ids.New()}, Amount: 4200}, now.Add(-2*time.Hour))
	ops, err := b.Ops(now)
	require.NoError(t, err)
	require.NoError(t, d.Store.Write(context.Background(), ops...))
	e.close()

	r := embedded(t, dir, "ledger", "check", "--account", acct)
	require.Contains(t, r.stdout, "no difference")
	r = embedded(t, dir, "ledger", "settle")
	require.Contains(t, r.stdout, "settled 1 captures")
	r = embedded(t, dir, "ledger", "check")
	require.Contains(t, r.stdout, "1 accounts, 2 entries")

	e = &env{Getenv: func(string) string { return "" }, Store: "embedded", DataDir: dir}
	d, err = e.Deps(context.Background())
	require.NoError(t, err)
	require.NoError(t, d.Store.Write(context.Background(), store.Add(ledger.BalanceKey(acct, "EUR", ledger.Available), 1, false, store.Always)))
	e.close()
	for _, args := range [][]string{{"ledger", "check", "--account", acct}, {"ledger", "check"}} {
		r = cli(t, nil, append(args, "--data-dir", dir)...)
		require.Equal(t, 1, r.code, r.stdout)
		require.Contains(t, r.stdout, "EUR available: stored 4201, entries sum to 4200")
	}
	r = cli(t, nil, "ledger", "check", "--account", ids.New(), "--data-dir", dir)
	require.Equal(t, 1, r.code, "no such account")
}

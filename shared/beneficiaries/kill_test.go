package beneficiaries

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/apitest/crashtest"
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/ledger"
	"github.com/paygate/paygate/shared/ledger/ledgertest"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// TestKill9AfterTheBankAnswered: the payment orders consumer's process is
// killed with SIGKILL right after the bank answered "paid" and before the
// consumer recorded it; the server starts again on the same data, its
// consumer receives the message again, asks the bank again (which answers
// the same, idempotent by order id) and records the answer: one order
// outcome, one paid entry, the money paid out once, the books consistent.
func TestKill9AfterTheBankAnswered(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a server")
	}
	bin := crashtest.Build(t, "./testdata/killserver")
	dataDir := t.TempDir()
	const key = "sk_test_orderkill0123456789abcdefghijkl"
	c := crashtest.Client{Key: key}
	do := func(base, method, path string, body any) (int, map[string]any) {
		t.Helper()
		return c.Must(t, base, method, path, body)
	}
	env := map[string]string{"DATA_DIR": dataDir, "SANDBOX_API_KEY": key, "CRASH_AFTER_BANK": "1"}
	srv := crashtest.Start(t, bin, env, crashtest.Ready)
	base := srv.URL()

	st, inv := do(base, "POST", "/v1/invoices", map[string]any{"amount": map[string]any{"value": 100000, "currency": "KZT"},
		"payer": map[string]any{"phone": "+77011234567"}, "description": "funds", "order_reference": "kill"})
	require.Equal(t, 201, st, "%v", inv)
	st, paid := do(base, "POST", "/test-helpers/invoices/"+inv["id"].(string)+"/pay", nil)
	require.Equal(t, 200, st, "%v", paid)
	st, ben := do(base, "POST", "/v1/merchants/beneficiaries", personBody(ibanPaid))
	require.Equal(t, 201, st, "%v", ben)
	benID := ben["id"].(string)
	st, dist := do(base, "POST", "/v1/distributions", map[string]any{"reference": "kill", "lines": []any{
		map[string]any{"beneficiary_id": benID, "amount": map[string]any{"value": 80000, "currency": "KZT"}}}})
	require.Equal(t, 201, st, "%v", dist)
	st, order := do(base, "POST", "/v1/merchants/settlement-payment-orders", orderBody(benID, 60000, "req-kill"))
	require.Equal(t, 201, st, "%v", order)
	id := order["id"].(string)

	// The consumer takes the message, the bank pays, the process dies.
	calls := filepath.Join(dataDir, "bank-calls")
	require.Eventually(t, func() bool {
		b, _ := os.ReadFile(calls)
		return strings.Count(string(b), id) == 1
	}, 15*time.Second, 20*time.Millisecond, "the bank was asked")
	require.Eventually(t, func() bool {
		_, _, err := c.Do(base, "GET", "/health", nil, "")
		return err != nil
	}, 10*time.Second, 20*time.Millisecond, "the server died after the bank answered")
	srv.Kill()

	env["CRASH_AFTER_BANK"] = "0"
	srv = crashtest.Start(t, bin, env, crashtest.Ready)
	base = srv.URL()
	require.Eventually(t, func() bool {
		st, o := do(base, "GET", "/v1/merchants/settlement-payment-orders/"+id, nil)
		return st == 200 && o["status"] == "paid"
	}, 20*time.Second, 50*time.Millisecond, "the order is paid after the restart")
	b, err := os.ReadFile(calls)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(b), id), "the bank was asked twice")
	st, got := do(base, "GET", "/v1/merchants/beneficiaries/"+benID, nil)
	require.Equal(t, 200, st)
	assert.Equal(t, []any{map[string]any{"currency": "KZT", "available": 20000.0, "reserved": 0.0}}, got["balances"])
	srv.Kill()

	s, err := boltstore.Open(filepath.Join(dataDir, "store.db"), nil)
	require.NoError(t, err)
	defer s.Close()
	ctx := context.Background()
	k, err := app.WithStore(s, nil, nil, nil).Keys.Authenticate(ctx, key)
	require.NoError(t, err)
	all, err := ledger.CheckAll(ctx, s)
	require.NoError(t, err)
	require.True(t, all.OK(), all.String())
	es, err := ledgertest.EntriesOf(ctx, s, k.AccountID, ledger.Source{Type: ledger.SourcePaymentOrder, ID: id})
	require.NoError(t, err)
	var types []ledger.EntryType
	for _, e := range es {
		types = append(types, e.Type)
	}
	assert.ElementsMatch(t, []ledger.EntryType{ledger.EntryPaymentOrder, ledger.EntryPaymentOrderPaid}, types, "one outcome, one entry")
	bank, err := ledgertest.ExternalTotal(ctx, s, k.AccountID, "KZT", ledger.Bank)
	require.NoError(t, err)
	assert.Equal(t, int64(-100000+60000), bank, "the invoice in, the order out once")
}

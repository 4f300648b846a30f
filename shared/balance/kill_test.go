package balance

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

// TestKill9AfterTheProcessorAnswered: the payouts consumer's process is
// killed with SIGKILL right after the payout processor answered "paid" and
// before the consumer recorded it; the server starts again on the same data,
// its consumer receives the message again, asks the processor again (which
// answers the same, idempotent by payout id) and records the answer: one
// payout, one paid entry, the money paid out once, the books consistent.
func TestKill9AfterTheProcessorAnswered(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a server")
	}
	bin := crashtest.Build(t, "./testdata/killserver")
	dataDir := t.TempDir()
	const key = "sk_test_payoutkill0123456789abcdefghijk"
	c := crashtest.Client{Key: key}
	do := func(base, method, path string, body any) (int, map[string]any) {
		t.Helper()
		return c.Must(t, base, method, path, body)
	}
	env := map[string]string{"DATA_DIR": dataDir, "SANDBOX_API_KEY": key, "CRASH_AFTER_PAY": "1"}
	srv := crashtest.Start(t, bin, env, crashtest.Ready)
	base := srv.URL()

	st, pay := do(base, "POST", "/v2/payments", map[string]any{"amount": map[string]any{"value": 10000, "currency": "EUR"},
		"reference": "order-kill", "returnUrl": "https://shop.example.com/return", "paymentMethod": map[string]any{"type": "scheme",
			"encryptedCardNumber": "test_4111111111111111", "encryptedExpiryMonth": "test_03", "encryptedExpiryYear": "test_2030",
			"encryptedSecurityCode": "test_737"}})
	require.Equal(t, 200, st, "%v", pay) // captured at authorisation: 100.00 EUR available
	st, card := do(base, "POST", "/v1/payouts/cards", map[string]any{"number": cardPaid, "expiry_month": 3, "expiry_year": expiryYear, "holder_name": "J. Smith"})
	require.Equal(t, 201, st, "%v", card)
	st, po := do(base, "POST", "/v1/payouts", payoutBody(card["id"].(string), 6000))
	require.Equal(t, 201, st, "%v", po)
	id := po["id"].(string)

	// The consumer takes the message, the processor pays, the process dies.
	calls := filepath.Join(dataDir, "processor-calls")
	require.Eventually(t, func() bool {
		b, _ := os.ReadFile(calls)
		return strings.Count(string(b), id) == 1
	}, 15*time.Second, 20*time.Millisecond, "the processor was asked")
	require.Eventually(t, func() bool {
		_, _, err := c.Do(base, "GET", "/health", nil, "")
		return err != nil
	}, 10*time.Second, 20*time.Millisecond, "the server died after the processor answered")
	srv.Kill()

	env["CRASH_AFTER_PAY"] = "0"
	srv = crashtest.Start(t, bin, env, crashtest.Ready)
	base = srv.URL()
	require.Eventually(t, func() bool {
		st, p := do(base, "GET", "/v1/payouts/"+id, nil)
		return st == 200 && p["status"] == "paid"
	}, 20*time.Second, 50*time.Millisecond, "the payout is paid after the restart")
	b, err := os.ReadFile(calls)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(b), id), "the processor was asked twice")
	st, bal := do(base, "GET", "/v1/balance", nil)
	require.Equal(t, 200, st)
	row := bal["data"].([]any)[0].(map[string]any)
	assert.EqualValues(t, 4000, row["available"])
	assert.EqualValues(t, 0, row["reserved"])
	srv.Kill()

	s, err := boltstore.Open(filepath.Join(dataDir, "store.db"), nil)
	require.NoError(t, err)
	defer s.Close()
	ctx := context.Background()
	k, err := app.WithStore(s, nil, nil, nil).Keys.Authenticate(ctx, key)
	require.NoError(t, err)
	accountID := k.AccountID
	all, err := ledger.CheckAll(ctx, s)
	require.NoError(t, err)
	require.True(t, all.OK(), all.String())
	require.Equal(t, 1, all.Accounts)
	es, err := ledgertest.EntriesOf(ctx, s, accountID, ledger.Source{Type: ledger.SourcePayout, ID: id})
	require.NoError(t, err)
	var types []ledger.EntryType
	for _, e := range es {
		types = append(types, e.Type)
	}
	assert.Equal(t, []ledger.EntryType{ledger.EntryPayout, ledger.EntryPayoutPaid}, types, "one payout, one paid entry")
	paidOut, err := ledgertest.ExternalTotal(ctx, s, accountID, "EUR", ledger.PaidOut)
	require.NoError(t, err)
	assert.Equal(t, int64(6000), paidOut, "paid out once")
}

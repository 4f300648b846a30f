package beneficiaries

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/testkit/remittancetest"
)

// TestKill9AfterTheBankAnswered: the payment orders consumer's process is
// killed with SIGKILL right after the bank answered "paid" and before the
// consumer recorded it; the server starts again on the same data, its
// consumer receives the message again, asks the bank again (which answers
// the same, idempotent by order id) and records the answer: one order
// outcome, one paid entry, the money paid out once, the books consistent
// (remittancetest.Kill).
func TestKill9AfterTheBankAnswered(t *testing.T) {
	var benID string
	remittancetest.Kill{Server: "./testdata/killserver", Key: "sk_test_orderkill0123456789abcdefghijkl",
		Calls: "bank-calls", Crash: "CRASH_AFTER_BANK", Payer: "the bank",
		Make: func(t *testing.T, do remittancetest.Do) (string, string) {
			st, inv := do("POST", "/v1/invoices", map[string]any{"amount": map[string]any{"value": 100000, "currency": "KZT"},
				"payer": map[string]any{"phone": "+77011234567"}, "description": "funds", "order_reference": "kill"})
			require.Equal(t, 201, st, "%v", inv)
			st, paid := do("POST", "/test-helpers/invoices/"+inv["id"].(string)+"/pay", nil)
			require.Equal(t, 200, st, "%v", paid)
			st, ben := do("POST", "/v1/merchants/beneficiaries", personBody(ibanPaid))
			require.Equal(t, 201, st, "%v", ben)
			benID = ben["id"].(string)
			st, dist := do("POST", "/v1/distributions", map[string]any{"reference": "kill", "lines": []any{
				map[string]any{"beneficiary_id": benID, "amount": map[string]any{"value": 80000, "currency": "KZT"}}}})
			require.Equal(t, 201, st, "%v", dist)
			st, order := do("POST", "/v1/merchants/settlement-payment-orders", orderBody(benID, 60000, "req-kill"))
			require.Equal(t, 201, st, "%v", order)
			id := order["id"].(string)
			return id, "/v1/merchants/settlement-payment-orders/" + id
		},
		Paid: func(t *testing.T, do remittancetest.Do, _ string) {
			st, got := do("GET", "/v1/merchants/beneficiaries/"+benID, nil)
			require.Equal(t, 200, st)
			assert.Equal(t, []any{map[string]any{"currency": "KZT", "available": 20000.0, "reserved": 0.0}}, got["balances"])
		},
		// The invoice in, the order out once.
		Source: ledger.SourcePaymentOrder, Entries: []ledger.EntryType{ledger.EntryPaymentOrder, ledger.EntryPaymentOrderPaid},
		External: ledger.Bank, Currency: "KZT", Total: -100000 + 60000,
	}.Run(t)
}

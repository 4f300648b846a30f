package balance

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/testkit/remittancetest"
)

// TestKill9AfterTheProcessorAnswered: the payouts consumer's process is
// killed with SIGKILL right after the payout processor answered "paid" and
// before the consumer recorded it; the server starts again on the same data,
// its consumer receives the message again, asks the processor again (which
// answers the same, idempotent by payout id) and records the answer: one
// payout, one paid entry, the money paid out once, the books consistent
// (remittancetest.Kill).
func TestKill9AfterTheProcessorAnswered(t *testing.T) {
	remittancetest.Kill{Server: "./testdata/killserver", Key: "sk_test_payoutkill0123456789abcdefghijk",
		Calls: "processor-calls", Crash: "CRASH_AFTER_PAY", Payer: "the processor",
		Make: func(t *testing.T, do remittancetest.Do) (string, string) {
			st, pay := do("POST", "/v2/payments", map[string]any{"amount": map[string]any{"value": 10000, "currency": "EUR"},
				"reference": "order-kill", "returnUrl": "https://shop.example.com/return", "paymentMethod": map[string]any{"type": "scheme",
					"encryptedCardNumber": "test_4111111111111111", "encryptedExpiryMonth": "test_03", "encryptedExpiryYear": "test_2030",
					"encryptedSecurityCode": "test_737"}})
			require.Equal(t, 200, st, "%v", pay) // captured at authorisation: 100.00 EUR available
			st, card := do("POST", "/v1/payouts/cards", map[string]any{"number": cardPaid, "expiry_month": 3, "expiry_year": expiryYear, "holder_name": "J. Smith"})
			require.Equal(t, 201, st, "%v", card)
			st, po := do("POST", "/v1/payouts", payoutBody(card["id"].(string), 6000))
			require.Equal(t, 201, st, "%v", po)
			id := po["id"].(string)
			return id, "/v1/payouts/" + id
		},
		Paid: func(t *testing.T, do remittancetest.Do, _ string) {
			st, bal := do("GET", "/v1/balance", nil)
			require.Equal(t, 200, st)
			row := bal["data"].([]any)[0].(map[string]any)
			assert.EqualValues(t, 4000, row["available"])
			assert.EqualValues(t, 0, row["reserved"])
		},
		Source: ledger.SourcePayout, Entries: []ledger.EntryType{ledger.EntryPayout, ledger.EntryPayoutPaid},
		External: ledger.PaidOut, Currency: "EUR", Total: 6000,
	}.Run(t)
}

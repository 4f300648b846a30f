package wiring_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/wiring"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// TestLiveKeysMeetOneAnswer: with no live connector configured, a live key
// on a money route that reaches an outside system gets one answer, 403
// live_mode_unavailable with one message, whichever system the route calls
// (domain/connectors decides it). The recurring and direct payment routes,
// which need a live card token or encrypted card first, check the same code
// in their own tests.
func TestLiveKeysMeetOneAnswer(t *testing.T) {
	e := apitest.New(t, wiring.HTTP()...)
	_, live := e.NewAccount(accounts.Live)
	idem := 0
	key := func() string { idem++; return "live-" + string(rune('a'+idem)) }
	for _, c := range []struct {
		system, path string
		body         map[string]any
	}{
		{"card processor", "/v2/payments", map[string]any{"amount": map[string]any{"value": 1000, "currency": "EUR"},
			"reference": "live-1", "returnUrl": "https://shop.example/return", "paymentMethod": map[string]any{"type": "scheme",
				"encryptedCardNumber": "adyenjs_0_1_25$live", "encryptedExpiryMonth": "adyenjs_0_1_25$live",
				"encryptedExpiryYear": "adyenjs_0_1_25$live", "encryptedSecurityCode": "adyenjs_0_1_25$live"}}},
		{"payout processor", "/v1/payouts/cards", map[string]any{"number": "4111111111111111", "expiry_month": 3,
			"expiry_year": 2030, "holder_name": "J. Smith"}},
		{"bank", "/v1/merchants/settlement-payment-orders", map[string]any{"beneficiary_id": "0190a000-0000-7000-8000-000000000001",
			"amount": map[string]any{"value": 100, "currency": "KZT"}, "purpose_code": "119", "description": "May", "request_id": "req-live"}},
		{"phone-wallet provider", "/v1/wallet/authorize", map[string]any{"amount": 1000, "phoneNumber": "+77000000001",
			"iin": "900101300017", "orderReference": "order-1", "currency": "KZT"}},
		{"Google Pay", "/v1/googlepay/sessions", map[string]any{"amount": map[string]any{"value": 1000, "currency": "EUR"}}},
	} {
		r := e.DoKey(live, "POST", c.path, c.body, "Idempotency-Key", key())
		require.Equal(t, 403, r.Status, "%s (%s): %s", c.path, c.system, r.Body)
		er := r.Err(t)
		assert.Equal(t, "live_mode_unavailable", er["code"], "%s (%s)", c.path, c.system)
		assert.Equal(t, "live mode is not available for this call: no live connector is configured for the account; use a test key",
			er["message"], "%s: the same body on every route", c.path)
	}
}

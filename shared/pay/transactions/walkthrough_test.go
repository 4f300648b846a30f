package transactions

import (
	"testing"

	"github.com/paygate/paygate/shared/pay/checkout"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWalkThrough is docs/managing-payments.md's walk-through on both stores: authorise a
// card in checkout for manual capture, capture half, refund a quarter twice,
// read the history.
func TestWalkThrough(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, checkout.BuildCheckoutPayments)
		r := e.post("/v2/payments", map[string]any{"amount": map[string]any{"value": 10000, "currency": "EUR"}, "reference": "order-44",
			"returnUrl": "https://shop.example.com/return", "paymentMethod": map[string]any{"type": "scheme",
				"encryptedCardNumber": "test_4111111111111111", "encryptedExpiryMonth": "test_03", "encryptedExpiryYear": "test_2030",
				"encryptedSecurityCode": "test_737"}, "additionalData": map[string]any{"manualCapture": "true"}})
		require.Equal(t, 200, r.Status, string(r.Body))
		require.Equal(t, "Authorised", r.Map(t)["resultCode"])
		id := r.Map(t)["pspReference"].(string)
		tx := e.get(id)
		assert.Equal(t, "authorized", tx["status"])
		assert.Equal(t, "manual", tx["capture_mode"])
		assert.Equal(t, "order-44", tx["merchant_reference"])
		assert.Equal(t, "1111", tx["last4"])
		assert.EqualValues(t, 10000, tx["capturable_amount"])

		r = e.post("/v1/transactions/"+id+"/capture", map[string]any{"amount": 5000, "final": true})
		require.Equal(t, 200, r.Status, string(r.Body))
		for i := 0; i < 2; i++ {
			r = e.post("/v1/transactions/"+id+"/refund", map[string]any{"amount": 1250, "reason": "requested_by_customer"})
			require.Equal(t, 200, r.Status, string(r.Body))
			assert.Equal(t, "refund", r.Map(t)["type"])
		}
		tx = e.get(id)
		assert.Equal(t, "partially_refunded", tx["status"])
		assert.EqualValues(t, 5000, tx["processed_amount"])
		assert.EqualValues(t, 2500, tx["refunded_amount"])
		assert.EqualValues(t, 2500, tx["balance"])

		var hist struct {
			Data []HistoryEntry `json:"data"`
		}
		e.Do("GET", "/v1/transactions/"+id+"/history", nil).JSON(t, &hist)
		var moves []string
		for _, h := range hist.Data {
			moves = append(moves, string(h.From)+">"+string(h.To))
		}
		assert.Equal(t, []string{">created", "created>authorized", "authorized>charged", "charged>partially_refunded", "partially_refunded>partially_refunded"}, moves)
		assert.EqualValues(t, 5000, hist.Data[2].Amount)
		assert.EqualValues(t, 1250, hist.Data[4].Amount)

		var byRef struct {
			Data []map[string]any `json:"data"`
		}
		e.Do("GET", "/v1/transactions/by-order-reference/order-44", nil).JSON(t, &byRef)
		assert.Len(t, byRef.Data, 3, "the payment and its two refunds")
	})
}

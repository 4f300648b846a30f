package transactions

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/paygate/paygate/shared/pay/checkout"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func cardPayment(ref, number string, additional map[string]any) map[string]any {
	b := map[string]any{"amount": map[string]any{"value": 10000, "currency": "EUR"}, "reference": ref,
		"returnUrl": "https://shop.example.com/return", "paymentMethod": map[string]any{"type": "scheme",
			"encryptedCardNumber": "test_" + number, "encryptedExpiryMonth": "test_03", "encryptedExpiryYear": "test_2030",
			"encryptedSecurityCode": "test_737"}}
	if additional != nil {
		b["additionalData"] = additional
	}
	return b
}

func moves(t *testing.T, e *env, id string) []string {
	t.Helper()
	var hist struct {
		Data []HistoryEntry `json:"data"`
	}
	e.Do("GET", "/v1/transactions/"+id+"/history", nil).JSON(t, &hist)
	var out []string
	for _, h := range hist.Data {
		out = append(out, string(h.From)+">"+string(h.To)+":"+h.Reason)
	}
	return out
}

// TestCaptureModes: a checkout payment is captured with its authorisation
// unless additionalData.manualCapture is "true", which holds the funds for
// a capture or cancel (and the 7-day expiry).
func TestCaptureModes(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, checkout.BuildCheckoutPayments)

		// Default: automatic, in one write with the authorisation.
		r := e.post("/v2/payments", cardPayment("auto-1", "4111111111111111", nil))
		require.Equal(t, 200, r.Status, string(r.Body))
		assert.Equal(t, "Authorised", r.Map(t)["resultCode"])
		auto := r.Map(t)["pspReference"].(string)
		tx := e.get(auto)
		assert.Equal(t, "charged", tx["status"])
		assert.Equal(t, "automatic", tx["capture_mode"])
		assert.EqualValues(t, 10000, tx["processed_amount"])
		assert.EqualValues(t, 10000, tx["balance"])
		assert.EqualValues(t, 0, tx["capturable_amount"])
		assert.Nil(t, tx["authorization_expires_at"])
		assert.Equal(t, []string{">created:", "created>authorized:", "authorized>charged:automatic capture"}, moves(t, e, auto))
		assert.Equal(t, []string{"payment.authorised", "payment.charged"}, e.events(auto))
		assert.Equal(t, 0, e.expiryEntries(), "a captured payment holds nothing that could expire")

		// "false" is the default spelled out.
		r = e.post("/v2/payments", cardPayment("auto-2", "5555555555554444", map[string]any{"manualCapture": "false"}))
		require.Equal(t, 200, r.Status, string(r.Body))
		assert.Equal(t, "charged", e.get(r.Map(t)["pspReference"].(string))["status"])

		// Manual: held, capturable, on the expiry index.
		r = e.post("/v2/payments", cardPayment("manual-1", "4111111111111111", map[string]any{"manualCapture": "true"}))
		require.Equal(t, 200, r.Status, string(r.Body))
		manual := r.Map(t)["pspReference"].(string)
		tx = e.get(manual)
		assert.Equal(t, "authorized", tx["status"])
		assert.Equal(t, "manual", tx["capture_mode"])
		assert.EqualValues(t, 10000, tx["capturable_amount"])
		assert.NotNil(t, tx["authorization_expires_at"])
		assert.Equal(t, 1, e.expiryEntries())
		r = e.post("/v1/transactions/"+manual+"/cancel", nil)
		require.Equal(t, 200, r.Status, string(r.Body))
		assert.Equal(t, 0, e.expiryEntries())

		// After 3-D Secure the capture follows the authorisation all the same.
		r = e.post("/v2/payments", cardPayment("auto-3ds", "4917610000000000", nil))
		require.Equal(t, 200, r.Status, string(r.Body))
		m := r.Map(t)
		require.Equal(t, "IdentifyShopper", m["resultCode"])
		threeDS := m["pspReference"].(string)
		assert.Equal(t, "requires_action", e.get(threeDS)["status"])
		tok := m["action"].(map[string]any)["authorisationToken"].(string)
		r = e.post("/v2/payments/details", map[string]any{"details": map[string]any{"threeDSResult": threeDSResult("", tok)}})
		require.Equal(t, 200, r.Status, string(r.Body))
		assert.Equal(t, "Authorised", r.Map(t)["resultCode"])
		tx = e.get(threeDS)
		assert.Equal(t, "charged", tx["status"])
		assert.EqualValues(t, 10000, tx["processed_amount"])

		// A refused payment captures nothing.
		r = e.post("/v2/payments", cardPayment("refused-1", "4000000000000010", nil))
		require.Equal(t, 200, r.Status, string(r.Body))
		tx = e.get(r.Map(t)["pspReference"].(string))
		assert.Equal(t, "rejected", tx["status"])
		assert.EqualValues(t, 0, tx["processed_amount"])

		// Anything but "true" or "false" is a 400 naming the entry, and
		// nothing is stored.
		before := len(e.list(t))
		r = e.post("/v2/payments", cardPayment("bad-mode", "4111111111111111", map[string]any{"manualCapture": "yes"}))
		require.Equal(t, 400, r.Status, string(r.Body))
		_, param, _ := errParam(t, r)
		assert.Equal(t, "additionalData.manualCapture", param)
		assert.Len(t, e.list(t), before)
	})
}

// threeDSResult is a details.threeDSResult as the 3DS2 component builds it.
func threeDSResult(transStatus, authToken string) string {
	b, _ := json.Marshal(map[string]string{"transStatus": transStatus, "authorisationToken": authToken})
	return base64.StdEncoding.EncodeToString(b)
}

// list is every transaction of the account (one page: tests hold few).
func (e *env) list(t *testing.T) []map[string]any {
	t.Helper()
	var page struct {
		Data []map[string]any `json:"data"`
	}
	r := e.Do("GET", "/v1/transactions?limit=100", nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	r.JSON(t, &page)
	return page.Data
}

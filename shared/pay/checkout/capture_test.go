package checkout_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/payments"
)

// TestSessionCaptureMode: the session's additionalData.manualCapture decides
// the capture mode of its payments, and the shopper's browser cannot change it.
func TestSessionCaptureMode(t *testing.T) {
	e := newEnv(t)
	ck := e.NewClientKey(origin)

	r := e.Do("POST", "/v2/sessions", sessionBody(e, map[string]any{"additionalData": map[string]any{"manualCapture": "maybe"}}))
	require.Equal(t, 400, r.Status, "%s", r.Body)
	assert.Equal(t, "additionalData.manualCapture", r.Err(t)["param"])

	manual := createSession(t, e, map[string]any{"reference": "manual-1", "additionalData": map[string]any{"manualCapture": "true", "other": "kept quiet"}})
	base := "/v2/client/sessions/" + manual.ID
	// The shopper's payment may not name a capture mode, in either direction.
	for _, v := range []string{"false", "true"} {
		r = clientDo(e, ck, base+"/payments", map[string]any{"sessionData": manual.SessionData, "paymentMethod": card("4111111111111111"),
			"additionalData": map[string]any{"manualCapture": v}})
		require.Equal(t, 400, r.Status, "%s", r.Body)
		assert.Equal(t, "capture_mode_fixed", r.Err(t)["code"])
		assert.Equal(t, "additionalData.manualCapture", r.Err(t)["param"])
	}
	assert.Empty(t, storedPayments(t, e, e.Account.ID), "a refused request stores nothing")

	r = clientDo(e, ck, base+"/payments", map[string]any{"sessionData": manual.SessionData, "paymentMethod": card("4111111111111111")})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	var p payResp
	r.JSON(t, &p)
	assert.Equal(t, "Authorised", p.ResultCode)

	auto := createSession(t, e, map[string]any{"reference": "auto-1"})
	r = clientDo(e, ck, "/v2/client/sessions/"+auto.ID+"/payments", map[string]any{"sessionData": auto.SessionData, "paymentMethod": card("4111111111111111")})
	require.Equal(t, 200, r.Status, "%s", r.Body)

	byRef := map[string]*payments.Payment{}
	for _, sp := range storedPayments(t, e, e.Account.ID) {
		byRef[sp.MerchantReference] = sp
	}
	require.Len(t, byRef, 2)
	assert.Equal(t, payments.Authorized, byRef["manual-1"].Status)
	assert.Equal(t, payments.CaptureManual, byRef["manual-1"].CaptureMode)
	assert.Equal(t, payments.Charged, byRef["auto-1"].Status)
	assert.Equal(t, payments.CaptureAutomatic, byRef["auto-1"].CaptureMode)
	assert.EqualValues(t, 1000, byRef["auto-1"].ProcessedAmount)

	// Both sessions completed, with their payment Authorised.
	for _, s := range []sess{manual, auto} {
		res := sessionResult(t, e, s.ID)
		assert.Equal(t, "completed", res["status"])
		assert.Equal(t, "Authorised", res["payments"].([]any)[0].(map[string]any)["resultCode"])
	}
}

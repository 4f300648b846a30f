package checkout_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSessionRecurringFields: a session created with Adyen's recurring
// fields answers them, and its payments store the card as its
// storePaymentMethodMode says, with its recurringProcessingModel.
func TestSessionRecurringFields(t *testing.T) {
	e := newEnv(t)
	ck := e.NewClientKey(origin)
	payIn := func(t *testing.T, extra map[string]any, pay map[string]any) (int, map[string]any) {
		t.Helper()
		s := createSession(t, e, extra)
		body := map[string]any{"sessionData": s.SessionData, "paymentMethod": card("4111111111111111")}
		for k, v := range pay {
			body[k] = v
		}
		r := clientDo(e, ck, "/v2/client/sessions/"+s.ID+"/payments", body)
		return r.Status, r.Map(t)
	}
	stored := func(m map[string]any) bool {
		ad, _ := m["additionalData"].(map[string]any)
		return ad["recurring.recurringDetailReference"] != nil
	}

	r := e.Do("POST", "/v2/sessions", sessionBody(e, map[string]any{"shopperReference": "shopper-rec-1",
		"storePaymentMethodMode": "enabled", "recurringProcessingModel": "CardOnFile", "shopperInteraction": "Ecommerce"}))
	require.Equal(t, 201, r.Status, "%s", r.Body)
	adyenValid(t, "CreateCheckoutSessionResponse", r.Body)
	got := r.Map(t)
	assert.Equal(t, "enabled", got["storePaymentMethodMode"])
	assert.Equal(t, "CardOnFile", got["recurringProcessingModel"])
	assert.Equal(t, "Ecommerce", got["shopperInteraction"])

	t.Run("enabled stores without the shopper's box", func(t *testing.T) {
		status, m := payIn(t, map[string]any{"shopperReference": "shopper-rec-2", "storePaymentMethodMode": "enabled",
			"recurringProcessingModel": "CardOnFile"}, nil)
		require.Equal(t, 200, status, "%v", m)
		assert.Equal(t, "Authorised", m["resultCode"])
		assert.True(t, stored(m), "%v", m)
		assert.Equal(t, "CardOnFile", m["additionalData"].(map[string]any)["recurringProcessingModel"])
	})
	t.Run("storePaymentMethod true is enabled", func(t *testing.T) {
		status, m := payIn(t, map[string]any{"shopperReference": "shopper-rec-3", "storePaymentMethod": true, "recurringProcessingModel": "CardOnFile"}, nil)
		require.Equal(t, 200, status, "%v", m)
		assert.True(t, stored(m), "%v", m)
	})
	t.Run("askForConsent stores when the shopper ticks the box", func(t *testing.T) {
		extra := map[string]any{"shopperReference": "shopper-rec-4", "storePaymentMethodMode": "askForConsent", "recurringProcessingModel": "CardOnFile"}
		status, m := payIn(t, extra, nil)
		require.Equal(t, 200, status, "%v", m)
		assert.False(t, stored(m), "%v", m)
		status, m = payIn(t, extra, map[string]any{"storePaymentMethod": true})
		require.Equal(t, 200, status, "%v", m)
		assert.True(t, stored(m), "%v", m)
	})
	t.Run("disabled refuses a payment that asks", func(t *testing.T) {
		status, m := payIn(t, map[string]any{"shopperReference": "shopper-rec-5", "storePaymentMethodMode": "disabled"},
			map[string]any{"storePaymentMethod": true})
		require.Equal(t, 400, status, "%v", m)
		assert.Equal(t, "storePaymentMethod", m["error"].(map[string]any)["param"])
	})
	t.Run("a payment keeps the session's model", func(t *testing.T) {
		status, m := payIn(t, map[string]any{"shopperReference": "shopper-rec-6", "recurringProcessingModel": "Subscription"},
			map[string]any{"recurringProcessingModel": "CardOnFile"})
		require.Equal(t, 400, status, "%v", m)
		assert.Equal(t, "recurringProcessingModel", m["error"].(map[string]any)["param"])
	})

	for name, c := range map[string]struct {
		extra       map[string]any
		code, param string
	}{
		"ContAuth":               {map[string]any{"shopperInteraction": "ContAuth"}, "parameter_invalid", "shopperInteraction"},
		"Moto":                   {map[string]any{"shopperInteraction": "Moto"}, "shopper_interaction_unsupported", "shopperInteraction"},
		"storing, no shopper":    {map[string]any{"storePaymentMethodMode": "enabled"}, "parameter_missing", "shopperReference"},
		"asking, no shopper":     {map[string]any{"storePaymentMethodMode": "askForConsent"}, "parameter_missing", "shopperReference"},
		"true and disabled":      {map[string]any{"shopperReference": "s-1234", "storePaymentMethod": true, "storePaymentMethodMode": "disabled"}, "parameter_invalid", "storePaymentMethod"},
		"an unknown mode":        {map[string]any{"storePaymentMethodMode": "always"}, "parameter_invalid", "storePaymentMethodMode"},
		"an unknown model":       {map[string]any{"recurringProcessingModel": "Installments"}, "parameter_invalid", "recurringProcessingModel"},
		"an unknown interaction": {map[string]any{"shopperInteraction": "POS"}, "parameter_invalid", "shopperInteraction"},
	} {
		t.Run(name, func(t *testing.T) {
			r := e.Do("POST", "/v2/sessions", sessionBody(e, c.extra))
			require.Equal(t, 400, r.Status, "%s", r.Body)
			assert.Equal(t, c.code, r.Err(t)["code"])
			assert.Equal(t, c.param, r.Err(t)["param"])
		})
	}
}

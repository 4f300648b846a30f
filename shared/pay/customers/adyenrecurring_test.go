package customers

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// adyenPay is an Adyen-shaped /v2/payments body with the recurring fields.
func adyenPay(ref, shopper, interaction, model string, method map[string]any, store bool) map[string]any {
	b := payment(ref, "", method)
	if shopper != "" {
		b["shopperReference"] = shopper
	}
	if store {
		b["storePaymentMethod"] = true
	}
	if interaction != "" {
		b["shopperInteraction"] = interaction
	}
	if model != "" {
		b["recurringProcessingModel"] = model
	}
	return b
}

// TestAdyenRecurringFields (issue 28, item 1): what Adyen's tokenization
// guide sends is taken. A first payment (Ecommerce, CardOnFile,
// storePaymentMethod) saves the card and answers
// additionalData.recurring.*; a merchant-initiated charge (ContAuth,
// Subscription, storedPaymentMethodId) of a card enrolled in 3-D Secure is
// authorised without the shopper (no action), recorded as a subscription
// charge; Adyen's rules refuse a ContAuth without a stored method, with
// another shopper's, with CardOnFile or with storePaymentMethod, Moto, an
// unknown value and storing without a shopperReference, each a 400 naming
// the field; a payment without the fields answers as before. Both stores.
func TestAdyenRecurringFields(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		// Tokenize: the first payment, with the shopper.
		r := e.post("/v2/payments", adyenPay("first-1", "adyen-shopper", "Ecommerce", "CardOnFile", card("4111111111111111"), true))
		require.Equal(t, 200, r.Status, "%s", r.Body)
		first := r.Map(t)
		require.Equal(t, "Authorised", first["resultCode"])
		token := e.tx(first["pspReference"].(string))["card_token_id"].(string)
		require.NotEmpty(t, token)
		assert.Equal(t, map[string]any{"recurring.recurringDetailReference": token, "recurring.shopperReference": "adyen-shopper",
			"recurringProcessingModel": "CardOnFile"}, first["additionalData"])

		// A card that asks for a challenge on session, saved, then charged
		// by the merchant alone: no action, authorised and captured.
		enrolled := e.saveCard3DS("adyen-mit", "5454545454545454")
		r = e.post("/v2/payments", adyenPay("mit-1", "adyen-mit", "ContAuth", "Subscription",
			map[string]any{"type": "scheme", "storedPaymentMethodId": enrolled}, false))
		require.Equal(t, 200, r.Status, "%s", r.Body)
		mit := r.Map(t)
		assert.Equal(t, "Authorised", mit["resultCode"], "%s", r.Body)
		assert.Nil(t, mit["action"], "no shopper, no 3-D Secure")
		assert.Equal(t, enrolled, mit["additionalData"].(map[string]any)["recurring.recurringDetailReference"])
		tx := e.tx(mit["pspReference"].(string))
		assert.Equal(t, "subscription", tx["recurring_type"])
		assert.Equal(t, "charged", tx["status"])
		assert.Equal(t, enrolled, tx["card_token_id"])

		// The same card on session (Ecommerce) still asks for the shopper.
		r = e.post("/v2/payments", adyenPay("cof-1", "adyen-mit", "Ecommerce", "CardOnFile",
			map[string]any{"type": "scheme", "storedPaymentMethodId": enrolled}, false))
		require.Equal(t, 200, r.Status, "%s", r.Body)
		assert.NotEqual(t, "Authorised", r.Map(t)["resultCode"], "on session, the card's 3-D Secure applies: %s", r.Body)

		// Adyen's rules, each a 400 naming the field.
		stored := map[string]any{"type": "scheme", "storedPaymentMethodId": token}
		for name, c := range map[string]struct {
			body  map[string]any
			param string
		}{
			"ContAuth without a stored method": {adyenPay("bad-1", "adyen-shopper", "ContAuth", "Subscription", card("4111111111111111"), false), "paymentMethod.storedPaymentMethodId"},
			"ContAuth of another shopper's":    {adyenPay("bad-2", "adyen-mit", "ContAuth", "Subscription", stored, false), "paymentMethod.storedPaymentMethodId"},
			"ContAuth with CardOnFile":         {adyenPay("bad-3", "adyen-shopper", "ContAuth", "CardOnFile", stored, false), "recurringProcessingModel"},
			"ContAuth storing":                 {adyenPay("bad-4", "adyen-shopper", "ContAuth", "Subscription", stored, true), "storePaymentMethod"},
			"Moto":                             {adyenPay("bad-5", "adyen-shopper", "Moto", "", card("4111111111111111"), false), "shopperInteraction"},
			"an unknown interaction":           {adyenPay("bad-6", "adyen-shopper", "POS", "", card("4111111111111111"), false), "shopperInteraction"},
			"an unknown model":                 {adyenPay("bad-7", "adyen-shopper", "", "Weekly", card("4111111111111111"), false), "recurringProcessingModel"},
			"storing without a shopper":        {adyenPay("bad-8", "", "Ecommerce", "CardOnFile", card("4111111111111111"), true), "shopperReference"},
		} {
			r = e.post("/v2/payments", c.body)
			require.Equal(t, 400, r.Status, "%s: %s", name, r.Body)
			_, param := errOf(t, r)
			assert.Equal(t, c.param, param, name)
		}
		_, param := errOf(t, e.post("/v2/payments", adyenPay("bad-9", "adyen-shopper", "Moto", "", card("4111111111111111"), false)))
		assert.Equal(t, "shopperInteraction", param)

		// Without the fields, the answer is as before: no additionalData.
		r = e.post("/v2/payments", payment("plain-1", "adyen-shopper", card("4111111111111111")))
		require.Equal(t, 200, r.Status, "%s", r.Body)
		assert.NotContains(t, r.Map(t), "additionalData")
	})
}

package customers

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/vault"
)

// TestCheckoutSavesACardToken: a checkout payment with storePaymentMethod
// and a shopperReference creates the shopper's customer (external_ref, and
// shopperEmail as its e-mail) and saves the card as its token, one record
// served as checkout's stored payment method and as a Pay API card token;
// the payment names both. No number or CVC is stored.
func TestCheckoutSavesACardToken(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		body := payment("order-1", "shopper-1", card("4111111111111111"))
		body["shopperEmail"] = "J.Smith@Example.com"
		r := e.post("/v2/payments", body)
		require.Equal(t, 200, r.Status, "%s", r.Body)
		tx := e.tx(r.Map(t)["pspReference"].(string))
		cus, tok := tx["customer_id"].(string), tx["card_token_id"].(string)
		require.NotEmpty(t, cus)
		require.NotEmpty(t, tok)

		c := e.Do("GET", "/v1/customers/"+cus, nil)
		require.Equal(t, 200, c.Status, "%s", c.Body)
		assert.Equal(t, "shopper-1", c.Map(t)["external_ref"])
		assert.Equal(t, "J.Smith@Example.com", c.Map(t)["email"])

		tokens := e.list("/v1/customers/" + cus + "/card-tokens")
		require.Len(t, tokens, 1)
		assert.Equal(t, tok, tokens[0]["id"])
		assert.Equal(t, "visa", tokens[0]["brand"])
		assert.Equal(t, "1111", tokens[0]["last4"])
		assert.Equal(t, "03", tokens[0]["expiry_month"])
		assert.Equal(t, "2030", tokens[0]["expiry_year"])
		assert.Equal(t, "J. Smith", tokens[0]["holder_name"])
		assert.Equal(t, tx["id"], tokens[0]["first_transaction_id"])

		m := e.Do("POST", "/v2/paymentMethods", map[string]any{"shopperReference": "shopper-1"})
		require.Equal(t, 200, m.Status, "%s", m.Body)
		stored := m.Map(t)["storedPaymentMethods"].([]any)
		require.Len(t, stored, 1)
		assert.Equal(t, tok, stored[0].(map[string]any)["id"], "one id in both APIs")

		// A later payment of the shopper, saving nothing, is the customer's
		// too; one with the token names it.
		plain := e.post("/v2/payments", map[string]any{"amount": map[string]any{"value": 500, "currency": "EUR"}, "reference": "order-2",
			"returnUrl": "https://shop.example.com/return", "paymentMethod": card("5555555555554444"), "shopperReference": "shopper-1"})
		require.Equal(t, 200, plain.Status, "%s", plain.Body)
		withToken := e.post("/v2/payments", map[string]any{"amount": map[string]any{"value": 700, "currency": "EUR"}, "reference": "order-3",
			"returnUrl": "https://shop.example.com/return", "paymentMethod": map[string]any{"type": "scheme", "storedPaymentMethodId": tok},
			"shopperReference": "shopper-1"})
		require.Equal(t, 200, withToken.Status, "%s", withToken.Body)
		assert.Equal(t, tok, e.tx(withToken.Map(t)["pspReference"].(string))["card_token_id"])
		assert.Equal(t, []string{withToken.Map(t)["pspReference"].(string), plain.Map(t)["pspReference"].(string), tx["id"].(string)},
			idsOf(e.list("/v1/customers/"+cus+"/transactions")), "the customer's transactions, newest first")
		assert.Len(t, e.list("/v1/transactions?customer_id="+cus), 3)

		for _, it := range append(e.partition(vault.TokensPK(e.Account.ID)), e.partition(vault.CustomerTokensPK(e.Account.ID, cus))...) {
			for _, s := range []string{"4111111111111111", "4111 1111", "cvc", "number", "737\""} {
				assert.NotContains(t, string(it.Data), s, "no card number or CVC is stored")
			}
		}
	})
}

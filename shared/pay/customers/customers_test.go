package customers

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/vault"
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
			for _, s := range []string{"4111111111111111", "4111 1111", "cvc", "number", `"737"`} {
				assert.NotContains(t, string(it.Data), s, "no card number or CVC is stored")
			}
		}
	})
}

// TestCreateReadAndList: POST /v1/customers (201, replayed with its key),
// GET, and the list with each filter served from its index.
func TestCreateReadAndList(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		body := map[string]any{"external_ref": "crm-1", "email": "ana@example.com", "name": "Ana", "description": "VIP",
			"metadata": map[string]any{"tier": "gold"}}
		key := e.key()
		r := e.Do("POST", "/v1/customers", body, "Idempotency-Key", key)
		require.Equal(t, 201, r.Status, "%s", r.Body)
		c := r.Map(t)
		id := c["id"].(string)
		assert.Equal(t, "crm-1", c["external_ref"])
		assert.Equal(t, map[string]any{"tier": "gold"}, c["metadata"])
		again := e.Do("POST", "/v1/customers", body, "Idempotency-Key", key)
		assert.Equal(t, 201, again.Status)
		assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
		assert.JSONEq(t, string(r.Body), string(again.Body))
		other := e.Do("POST", "/v1/customers", map[string]any{"external_ref": "crm-2"}, "Idempotency-Key", key)
		assert.Equal(t, 422, other.Status, "the key of another body")

		second := e.post("/v1/customers", map[string]any{"external_ref": "crm-2", "email": "ANA@example.com"})
		require.Equal(t, 201, second.Status, "%s", second.Body)
		third := e.post("/v1/customers", nil)
		require.Equal(t, 201, third.Status, "no body is a customer with no fields: %s", third.Body)
		id2, id3 := second.Map(t)["id"].(string), third.Map(t)["id"].(string)

		got := e.Do("GET", "/v1/customers/"+id, nil)
		require.Equal(t, 200, got.Status)
		assert.JSONEq(t, string(r.Body), string(got.Body))

		assert.Equal(t, []string{id3, id2, id}, idsOf(e.list("/v1/customers")), "newest first")
		assert.Equal(t, []string{id}, idsOf(e.list("/v1/customers?external_ref=crm-1")))
		assert.Empty(t, e.list("/v1/customers?external_ref=crm-9"))
		assert.Equal(t, []string{id2, id}, idsOf(e.list("/v1/customers?email=ana@EXAMPLE.com")), "e-mail case-insensitive")
		assert.Equal(t, []string{id2}, idsOf(e.list("/v1/customers?email=ana@example.com&external_ref=crm-2")))
		assert.Empty(t, idsOf(e.list("/v1/customers?email=bob@example.com")))
		page := e.Do("GET", "/v1/customers?limit=2", nil).Map(t)
		assert.Equal(t, true, page["has_more"])
		rest := e.list("/v1/customers?limit=2&cursor=" + page["next_cursor"].(string))
		assert.Equal(t, []string{id}, idsOf(rest))
		future := e.list("/v1/customers?created_from=2099-01-01T00:00:00Z")
		assert.Empty(t, future)

		// A second customer for one reference: 409 naming the first.
		dup := e.post("/v1/customers", map[string]any{"external_ref": "crm-1", "name": "Other"})
		require.Equal(t, 409, dup.Status, "%s", dup.Body)
		code, param := errOf(t, dup)
		assert.Equal(t, "external_ref_in_use", code)
		assert.Equal(t, "external_ref", param)
		assert.Contains(t, dup.Err(t)["message"], id)
		assert.Len(t, e.list("/v1/customers?limit=100"), 3, "nothing stored")
	})
}

// TestCustomerBadInput: each is a 400 naming the field (or 404), and
// nothing is stored.
func TestCustomerBadInput(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		for _, c := range []struct {
			body          any
			path          string
			status        int
			param, method string
		}{
			{body: map[string]any{"external_ref": "ab"}, param: "external_ref"},
			{body: map[string]any{"email": "not-an-email"}, param: "email"},
			{body: map[string]any{"email": "Ana <ana@example.com>"}, param: "email"},
			{body: map[string]any{"email": "ana@localhost"}, param: "email"},
			{body: map[string]any{"metadata": map[string]any{"": "x"}}, param: "metadata"},
			{body: map[string]any{"name": 12}, param: "name"},
			{body: map[string]any{"nickname": "x"}, param: "nickname"},
			{body: map[string]any{"external_ref": nil}, param: "external_ref"},
			{method: "GET", path: "/v1/customers/not-a-uuid", param: "id"},
			{method: "GET", path: "/v1/customers/0190a6c2-3b7e-7d4c-9a51-2f6e8b1c0d42", status: 404},
			{method: "GET", path: "/v1/customers/0190a6c2-3b7e-7d4c-9a51-2f6e8b1c0d42/card-tokens", status: 404},
			{method: "GET", path: "/v1/customers/0190a6c2-3b7e-7d4c-9a51-2f6e8b1c0d42/transactions", status: 404},
			{method: "DELETE", path: "/v1/customers/0190a6c2-3b7e-7d4c-9a51-2f6e8b1c0d42/card-tokens/spm_x", status: 404},
			{method: "DELETE", path: "/v1/customers/0190a6c2-3b7e-7d4c-9a51-2f6e8b1c0d42/card-tokens/tok_x", param: "token_id"},
			{method: "GET", path: "/v1/customers?email=nope", param: "email"},
			{method: "GET", path: "/v1/customers?external_ref=ab", param: "external_ref"},
			{method: "GET", path: "/v1/customers?created_from=tomorrow", param: "created_from"},
		} {
			method, path, status := c.method, c.path, c.status
			if method == "" {
				method, path = "POST", "/v1/customers"
			}
			if status == 0 {
				status = 400
			}
			r := e.Do(method, path, c.body, "Idempotency-Key", e.key())
			require.Equal(t, status, r.Status, "%s %s %v: %s", method, path, c.body, r.Body)
			if c.param != "" {
				_, param := errOf(t, r)
				assert.Equal(t, c.param, param, "%s", r.Body)
			}
		}
		noKey := e.Do("POST", "/v1/customers", map[string]any{})
		assert.Equal(t, 400, noKey.Status, "Idempotency-Key is required")
		assert.Empty(t, e.list("/v1/customers"), "nothing stored")
		assert.Empty(t, e.partition(vault.CustomersPK(e.Account.ID)))
	})
}

package customers

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/vault"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/sandbox/cardprocessor"
	"github.com/paygate/paygate/shared/store"
)

// TestAnotherAccountIs404: another account's customer, card token and
// transactions through a customer answer 404 on every route, exactly as
// missing ones; a token of another customer of the same account is a 404
// where the customer is named. Nothing of the other account changes.
func TestAnotherAccountIs404(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		mine := e.saveCard("iso-shopper", "4111111111111111")
		_, otherKey := e.NewAccount(accounts.Test)
		other := func(method, path string, body any) int {
			return e.DoKey(otherKey, method, path, body, "Idempotency-Key", e.key()).Status
		}
		cus, tok := "/v1/customers/"+mine.customer, mine.token
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{"GET", cus, nil},
			{"GET", cus + "/transactions", nil},
			{"GET", cus + "/card-tokens", nil},
			{"DELETE", cus + "/card-tokens/" + tok, nil},
			{"POST", "/v1/payments/recurring", recurring(tok, "iso-1")},
			{"POST", "/v1/payments/recurring", map[string]any{"customer_id": mine.customer, "amount": map[string]any{"value": 100, "currency": "EUR"},
				"order_reference": "iso-2", "recurring_type": "unscheduled"}},
			{"GET", "/v1/transactions/" + mine.payment, nil},
		} {
			assert.Equal(t, 404, other(c.method, c.path, c.body), "%s %s", c.method, c.path)
		}
		assert.Empty(t, listKey(t, e, otherKey, "/v1/customers?external_ref=iso-shopper"))
		assert.Empty(t, listKey(t, e, otherKey, "/v1/customers"))
		assert.Empty(t, listKey(t, e, otherKey, "/v1/transactions?customer_id="+mine.customer))

		// The other account's checkout does not see or pay with it either.
		r := e.DoKey(otherKey, "POST", "/v2/payments", map[string]any{"amount": map[string]any{"value": 900, "currency": "EUR"},
			"reference": "iso-co", "returnUrl": "https://shop.example.com/return", "shopperReference": "iso-shopper",
			"paymentMethod": map[string]any{"type": "scheme", "storedPaymentMethodId": tok}}, "Idempotency-Key", e.key())
		assert.Equal(t, 400, r.Status, "%s", r.Body)
		m := e.DoKey(otherKey, "POST", "/v2/paymentMethods", map[string]any{"shopperReference": "iso-shopper"})
		assert.NotContains(t, string(m.Body), "storedPaymentMethods")

		// Another customer of the same account.
		neighbour := e.saveCard("iso-neighbour", "5555555555554444")
		assert.Equal(t, 404, e.Do("DELETE", "/v1/customers/"+neighbour.customer+"/card-tokens/"+tok, nil).Status)
		both := recurring(tok, "iso-3")
		both["customer_id"] = neighbour.customer
		assert.Equal(t, 404, e.post("/v1/payments/recurring", both).Status)

		// All of it still there, unchanged.
		assert.Len(t, e.list(cus+"/card-tokens"), 1)
		assert.Len(t, e.list(cus+"/transactions"), 1)
		assert.Equal(t, 201, e.post("/v1/payments/recurring", recurring(tok, "iso-4")).Status)
	})
}

func listKey(t *testing.T, e *env, key, path string) []any {
	t.Helper()
	r := e.DoKey(key, "GET", path, nil)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	return r.Map(t)["data"].([]any)
}

// TestRecurringBadInput: each is a 4xx naming the field (404 for unknown
// ids), with the key's record, the payments and the events untouched: a
// retry with the same key runs again.
func TestRecurringBadInput(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		s := e.saveCard("bad-shopper", "4111111111111111")
		paymentsBefore := len(e.partition("pay#" + e.Account.ID))
		eventsBefore := countEvents(t, e)
		with := func(mut func(map[string]any)) map[string]any {
			b := recurring(s.token, "bad-1")
			mut(b)
			return b
		}
		key := e.key()
		for _, c := range []struct {
			name   string
			body   any
			status int
			param  string
		}{
			{"no token nor customer", with(func(b map[string]any) { delete(b, "card_token_id") }), 400, "card_token_id"},
			{"malformed token", with(func(b map[string]any) { b["card_token_id"] = "tok_123" }), 400, "card_token_id"},
			{"unknown token", with(func(b map[string]any) { b["card_token_id"] = "spm_unknown" }), 404, ""},
			{"malformed customer", with(func(b map[string]any) { delete(b, "card_token_id"); b["customer_id"] = "x" }), 400, "customer_id"},
			{"unknown customer", with(func(b map[string]any) {
				delete(b, "card_token_id")
				b["customer_id"] = "0190a6c2-3b7e-7d4c-9a51-2f6e8b1c0d42"
			}), 404, ""},
			{"no amount", with(func(b map[string]any) { delete(b, "amount") }), 400, "amount"},
			{"no value", with(func(b map[string]any) { b["amount"] = map[string]any{"currency": "EUR"} }), 400, "amount.value"},
			{"zero", with(func(b map[string]any) { b["amount"] = map[string]any{"value": 0, "currency": "EUR"} }), 400, "amount.value"},
			{"negative", with(func(b map[string]any) { b["amount"] = map[string]any{"value": -5, "currency": "EUR"} }), 400, "amount.value"},
			{"fraction", with(func(b map[string]any) { b["amount"] = map[string]any{"value": 10.5, "currency": "EUR"} }), 400, "amount.value"},
			{"too much", with(func(b map[string]any) { b["amount"] = map[string]any{"value": int64(1e15) + 1, "currency": "EUR"} }), 400, "amount.value"},
			{"decimal string", with(func(b map[string]any) { b["amount"] = map[string]any{"value": "25.00", "currency": "EUR"} }), 400, "amount.value"},
			{"no currency", with(func(b map[string]any) { b["amount"] = map[string]any{"value": 100} }), 400, "amount.currency"},
			{"bad currency", with(func(b map[string]any) { b["amount"] = map[string]any{"value": 100, "currency": "eur"} }), 400, "amount.currency"},
			{"no order reference", with(func(b map[string]any) { delete(b, "order_reference") }), 400, "order_reference"},
			{"no recurring type", with(func(b map[string]any) { delete(b, "recurring_type") }), 400, "recurring_type"},
			{"bad recurring type", with(func(b map[string]any) { b["recurring_type"] = "weekly" }), 400, "recurring_type"},
			{"bad capture", with(func(b map[string]any) { b["capture"] = "later" }), 400, "capture"},
			{"off_session a string", with(func(b map[string]any) { b["off_session"] = "yes" }), 400, "off_session"},
			{"bad return_url", with(func(b map[string]any) { b["return_url"] = "not a url" }), 400, "return_url"},
			{"empty return_url", with(func(b map[string]any) { b["return_url"] = "" }), 400, "return_url"},
			{"metadata", with(func(b map[string]any) { b["metadata"] = map[string]any{"": "x"} }), 400, "metadata"},
			{"unknown field", with(func(b map[string]any) { b["cvc"] = "737" }), 400, "cvc"},
			{"no body", nil, 400, ""},
		} {
			r := e.Do("POST", "/v1/payments/recurring", c.body, "Idempotency-Key", key)
			require.Equal(t, c.status, r.Status, "%s: %s", c.name, r.Body)
			if c.param != "" {
				_, param := errOf(t, r)
				assert.Equal(t, c.param, param, "%s: %s", c.name, r.Body)
			}
		}
		assert.Len(t, e.partition("pay#"+e.Account.ID), paymentsBefore, "no payment stored")
		assert.Equal(t, eventsBefore, countEvents(t, e), "no event")
		r := e.Do("POST", "/v1/payments/recurring", recurring(s.token, "bad-1"), "Idempotency-Key", key)
		assert.Equal(t, 201, r.Status, "the key was not used up: %s", r.Body)

		// Live keys: another account's token is a 404; a token of their own
		// (none can be saved yet: live checkout stores no card) a 403, as no
		// live processor is connected.
		liveAccount, live := e.NewAccount(accounts.Live)
		assert.Equal(t, 404, e.DoKey(live, "POST", "/v1/payments/recurring", recurring(s.token, "live-1"), "Idempotency-Key", e.key()).Status)
		w, err := vault.New(e.Deps.Store).Save(context.Background(), vault.SaveCard{AccountID: liveAccount.ID, Livemode: true,
			ShopperRef: "live-shopper", TokenID: "spm_live", Card: cards.SavedCard{Profile: cardprocessor.ProfileAuthorised,
				Brand: "visa", Last4: "1111", ExpiryMonth: "03", ExpiryYear: "2030"}}, e.Clock.Now())
		require.NoError(t, err)
		require.NoError(t, e.Deps.Store.Write(context.Background(), w.Ops...))
		r = e.DoKey(live, "POST", "/v1/payments/recurring", recurring("spm_live", "live-2"), "Idempotency-Key", e.key())
		require.Equal(t, 403, r.Status, "%s", r.Body)
		code, _ := errOf(t, r)
		assert.Equal(t, "live_mode_unavailable", code)
	})
}

func countEvents(t *testing.T, e *env) int {
	t.Helper()
	page, err := e.Deps.Store.Query(context.Background(), store.Query{Table: store.TableEvents, PK: "evt#" + e.Account.ID, Limit: 1000})
	require.NoError(t, err)
	return len(page.Items)
}

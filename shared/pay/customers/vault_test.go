package customers

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/vault"
	"github.com/paygate/paygate/shared/store"
)

// customerOf is the id of the customer with external_ref ref ("" if none),
// after checking there is at most one.
func (e *env) customerOf(ref string) string {
	e.T.Helper()
	l := e.list("/v1/customers?external_ref=" + ref)
	require.LessOrEqual(e.T, len(l), 1)
	if len(l) == 0 {
		return ""
	}
	return l[0]["id"].(string)
}

// TestConcurrentFirstStoresMakeOneCustomer: many first payments of a new
// shopper at once, saving one card, make one customer and one token; saving
// different cards at once, one customer with a token each; a payment and
// POST /v1/customers racing for one reference make one customer (the API
// call that loses is a 409). Every payment is the customer's.
func TestConcurrentFirstStoresMakeOneCustomer(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		const n = 10
		pay := func(shopper, number string) string {
			r := e.post("/v2/payments", payment("race-"+shopper, shopper, card(number)))
			require.Equal(t, 200, r.Status, "%s", r.Body)
			return r.Map(t)["pspReference"].(string)
		}
		var wg sync.WaitGroup
		psps := make([]string, n)
		for i := range n {
			wg.Go(func() { psps[i] = pay("race-one", "4111111111111111") })
		}
		wg.Wait()
		cus := e.customerOf("race-one")
		require.NotEmpty(t, cus)
		assert.Len(t, e.partition(vault.CustomersPK(e.Account.ID)), 1, "one customer record")
		tokens := e.list("/v1/customers/" + cus + "/card-tokens")
		require.Len(t, tokens, 1, "one card saved ten times at once is one token")
		for _, psp := range psps {
			tx := e.tx(psp)
			assert.Equal(t, cus, tx["customer_id"])
			assert.Equal(t, tokens[0]["id"], tx["card_token_id"])
		}
		assert.Len(t, e.list("/v1/customers/"+cus+"/transactions?limit=100"), n)

		cards := []string{"4111111111111111", "5555555555554444", "370000000000002", "4000000000000341"}
		for _, number := range cards {
			wg.Go(func() {
				b := payment("race-two", "race-two", card(number))
				if number == "370000000000002" {
					b["paymentMethod"].(map[string]any)["encryptedSecurityCode"] = "test_7373"
				}
				r := e.post("/v2/payments", b)
				assert.Equal(t, 200, r.Status, "%s", r.Body)
			})
		}
		wg.Wait()
		two := e.customerOf("race-two")
		assert.Len(t, e.list("/v1/customers/"+two+"/card-tokens"), len(cards), "a token per card, one customer")
		assert.Len(t, e.partition(vault.CustomersPK(e.Account.ID)), 2)

		// A payment and the API racing to create one reference's customer.
		statuses := make([]int, n)
		for i := range n {
			wg.Go(func() {
				if i%2 == 0 {
					statuses[i] = e.post("/v1/customers", map[string]any{"external_ref": "race-three"}).Status
				} else {
					pay("race-three", "5555555555554444")
				}
			})
		}
		wg.Wait()
		three := e.customerOf("race-three")
		require.NotEmpty(t, three)
		created := 0
		for i := 0; i < n; i += 2 {
			assert.Contains(t, []int{201, 409}, statuses[i])
			if statuses[i] == 201 {
				created++
			}
		}
		assert.LessOrEqual(t, created, 1)
		assert.Len(t, e.partition(vault.CustomersPK(e.Account.ID)), 3, "one customer per reference")
		assert.Len(t, e.list("/v1/customers/"+three+"/card-tokens"), 1)
	})
}

// TestThreeDSPaymentSavesItsCardOnceAuthorised: a payment that waits for
// 3-D Secure saves its card (and creates the customer) in the write that
// authorises it, and joins the customer's transactions then; one refused at
// its challenge saves nothing.
func TestThreeDSPaymentSavesItsCardOnceAuthorised(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		r := e.post("/v2/payments", payment("tds-1", "tds-shopper", card("4917610000000000")))
		require.Equal(t, 200, r.Status, "%s", r.Body)
		require.Equal(t, "IdentifyShopper", r.Map(t)["resultCode"])
		assert.Empty(t, e.customerOf("tds-shopper"), "nothing saved while it waits")
		tok := r.Map(t)["action"].(map[string]any)["authorisationToken"].(string)
		d := e.post("/v2/payments/details", map[string]any{"details": map[string]any{"threeDSResult": threeDS(tok, "")}})
		require.Equal(t, 200, d.Status, "%s", d.Body)
		require.Equal(t, "Authorised", d.Map(t)["resultCode"])
		cus := e.customerOf("tds-shopper")
		require.NotEmpty(t, cus)
		psp := r.Map(t)["pspReference"].(string)
		tokens := e.list("/v1/customers/" + cus + "/card-tokens")
		require.Len(t, tokens, 1)
		assert.Equal(t, "0000", tokens[0]["last4"])
		tx := e.tx(psp)
		assert.Equal(t, cus, tx["customer_id"])
		assert.Equal(t, tokens[0]["id"], tx["card_token_id"])
		assert.Equal(t, []string{psp}, idsOf(e.list("/v1/customers/"+cus+"/transactions")))
		item, err := e.Deps.Store.Get(context.Background(), store.Key{Table: store.TablePayments, PK: "pay#" + e.Account.ID, SK: psp})
		require.NoError(t, err)
		assert.NotContains(t, string(item.Data), "keepCard", "the waiting card leaves the record once decided")

		// Refused at the challenge: nothing saved.
		r = e.post("/v2/payments", payment("tds-2", "tds-refused", card("5454545454545454")))
		tok = r.Map(t)["action"].(map[string]any)["authorisationToken"].(string)
		d = e.post("/v2/payments/details", map[string]any{"details": map[string]any{"threeDSResult": threeDS(tok, "")}})
		require.Equal(t, "ChallengeShopper", d.Map(t)["resultCode"])
		ch := e.post("/test-helpers/payments/"+r.Map(t)["pspReference"].(string)+"/challenge", map[string]any{"password": "wrong"})
		require.Equal(t, "Refused", ch.Map(t)["resultCode"], "%s", ch.Body)
		assert.Empty(t, e.customerOf("tds-refused"))

		// Passed at the challenge (the test helper): saved.
		r = e.post("/v2/payments", payment("tds-3", "tds-passed", card("5454545454545454")))
		tok = r.Map(t)["action"].(map[string]any)["authorisationToken"].(string)
		e.post("/v2/payments/details", map[string]any{"details": map[string]any{"threeDSResult": threeDS(tok, "")}})
		ch = e.post("/test-helpers/payments/"+r.Map(t)["pspReference"].(string)+"/challenge", map[string]any{"password": "password"})
		require.Equal(t, "Authorised", ch.Map(t)["resultCode"], "%s", ch.Body)
		passed := e.customerOf("tds-passed")
		require.NotEmpty(t, passed)
		assert.Len(t, e.list("/v1/customers/"+passed+"/card-tokens"), 1)
	})
}

// legacy writes a stored card as checkout kept it before card tokens (with
// the test card's number).
func (e *env) legacy(shopper, id, number, last4 string) {
	e.T.Helper()
	data, _ := json.Marshal(map[string]string{"id": id, "brand": "visa", "last4": last4, "expiryMonth": "3", "expiryYear": "30",
		"holderName": "Old Holder", "number": number})
	require.NoError(e.T, e.Deps.Store.Write(context.Background(), store.Put(store.Item{Key: store.Key{Table: store.TablePayments,
		PK: vault.LegacyPK(e.Account.ID, shopper), SK: id}, Data: data}, store.Always)))
}

// TestLegacyStoredCardsMigrate: stored cards kept before card tokens (with
// the test number) are listed and pay as before; the first write for their
// shopper turns them into card tokens with the same ids and no number, and
// deletes them.
func TestLegacyStoredCardsMigrate(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		e.legacy("old-shopper", "spm_legacyA", "4111111111111111", "1111")
		e.legacy("old-shopper", "spm_legacyB", "4000000000000341", "0341")
		e.legacy("api-shopper", "spm_legacyC", "5555555555554444", "4444")

		m := e.Do("POST", "/v2/paymentMethods", map[string]any{"shopperReference": "old-shopper"})
		require.Equal(t, 200, m.Status, "%s", m.Body)
		assert.Len(t, m.Map(t)["storedPaymentMethods"], 2, "listed before any migration")

		// Paying with a legacy id migrates the shopper: a customer, both
		// cards as tokens (same ids, profiles from their numbers), the
		// legacy records gone.
		r := e.post("/v2/payments", map[string]any{"amount": map[string]any{"value": 900, "currency": "EUR"}, "reference": "legacy-1",
			"returnUrl": "https://shop.example.com/return", "shopperReference": "old-shopper",
			"paymentMethod": map[string]any{"type": "scheme", "storedPaymentMethodId": "spm_legacyA"}})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		assert.Equal(t, "Authorised", r.Map(t)["resultCode"])
		tx := e.tx(r.Map(t)["pspReference"].(string))
		cus := e.customerOf("old-shopper")
		require.NotEmpty(t, cus)
		assert.Equal(t, cus, tx["customer_id"])
		assert.Equal(t, "spm_legacyA", tx["card_token_id"])
		tokens := e.list("/v1/customers/" + cus + "/card-tokens")
		assert.ElementsMatch(t, []string{"spm_legacyA", "spm_legacyB"}, idsOf(tokens))
		for _, tk := range tokens {
			assert.Equal(t, "03", tk["expiry_month"])
			assert.Equal(t, "2030", tk["expiry_year"])
		}
		assert.Empty(t, e.partition(vault.LegacyPK(e.Account.ID, "old-shopper")), "legacy records deleted")
		for _, it := range e.partition(vault.TokensPK(e.Account.ID)) {
			assert.NotContains(t, string(it.Data), "4111111111111111")
			assert.NotContains(t, string(it.Data), "4000000000000341")
		}
		// The profile replays: 0341 refuses its token's charges.
		rec := e.post("/v1/payments/recurring", recurring("spm_legacyB", "legacy-2"))
		require.Equal(t, 201, rec.Status, "%s", rec.Body)
		assert.Equal(t, "rejected", rec.Map(t)["status"])

		// Creating a customer through the API migrates its reference's cards.
		c := e.post("/v1/customers", map[string]any{"external_ref": "api-shopper"})
		require.Equal(t, 201, c.Status, "%s", c.Body)
		assert.Equal(t, []string{"spm_legacyC"}, idsOf(e.list("/v1/customers/"+c.Map(t)["id"].(string)+"/card-tokens")))
		assert.Empty(t, e.partition(vault.LegacyPK(e.Account.ID, "api-shopper")))
	})
}

// TestDeletedTokenPaysNoMore: a deleted card token is unusable for recurring
// payments and as checkout's storedPaymentMethodId, and is not listed; a
// second delete is a 404.
func TestDeletedTokenPaysNoMore(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		s := e.saveCard("del-shopper", "4111111111111111")
		require.Equal(t, 201, e.post("/v1/payments/recurring", recurring(s.token, "before-delete")).Status)

		d := e.Do("DELETE", "/v1/customers/"+s.customer+"/card-tokens/"+s.token, nil)
		require.Equal(t, 200, d.Status, "%s", d.Body)
		assert.JSONEq(t, `{"id":"`+s.token+`","deleted":true}`, string(d.Body))

		r := e.post("/v1/payments/recurring", recurring(s.token, "after-delete"))
		assert.Equal(t, 404, r.Status, "%s", r.Body)
		byCustomer := recurring("", "after-delete-2")
		delete(byCustomer, "card_token_id")
		byCustomer["customer_id"] = s.customer
		r = e.post("/v1/payments/recurring", byCustomer)
		assert.Equal(t, 400, r.Status, "%s", r.Body)
		code, param := errOf(t, r)
		assert.Equal(t, "no_card_token", code)
		assert.Equal(t, "customer_id", param)

		co := e.post("/v2/payments", map[string]any{"amount": map[string]any{"value": 900, "currency": "EUR"}, "reference": "co-after-delete",
			"returnUrl": "https://shop.example.com/return", "shopperReference": "del-shopper",
			"paymentMethod": map[string]any{"type": "scheme", "storedPaymentMethodId": s.token}})
		require.Equal(t, 400, co.Status, "%s", co.Body)
		code, param = errOf(t, co)
		assert.Equal(t, "stored_method_unknown", code)
		assert.Equal(t, "paymentMethod.storedPaymentMethodId", param)

		assert.Empty(t, e.list("/v1/customers/"+s.customer+"/card-tokens"))
		m := e.Do("POST", "/v2/paymentMethods", map[string]any{"shopperReference": "del-shopper"})
		assert.NotContains(t, string(m.Body), "storedPaymentMethods")
		assert.Equal(t, 404, e.Do("DELETE", "/v1/customers/"+s.customer+"/card-tokens/"+s.token, nil).Status)
		assert.Equal(t, s.token, e.tx(s.payment)["card_token_id"], "payments keep the id")
	})
}

package links_test

import (
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/testkit/openapitest"
)

var (
	adyenOnce sync.Once
	adyenDoc  *openapitest.Validator
	adyenErr  error
)

// adyenValid checks a body against a schema of Adyen's own v71 document.
func adyenValid(t *testing.T, schema string, body []byte) {
	t.Helper()
	adyenOnce.Do(func() {
		doc, err := os.ReadFile("../checkout/testdata/adyen-checkout-v71.json")
		if err != nil {
			adyenErr = err
			return
		}
		adyenDoc, adyenErr = openapitest.New("adyen", doc)
	})
	require.NoError(t, adyenErr)
	require.NoError(t, adyenDoc.ValidateSchema(schema, body), "%s: %s", schema, body)
}

// TestAdyenFaceIsTheSameLink: a link created on /v2 (Adyen's shape) reads
// on /v1 with the same values, and one created on /v1 reads on /v2; paying
// it shows completed, expiring it on /v2 cancels it on /v1; every answer
// validates against Adyen's own schema; both stores.
func TestAdyenFaceIsTheSameLink(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		exp := e.Clock.Now().Add(48 * time.Hour).Truncate(time.Second).UTC()
		body := map[string]any{"amount": map[string]any{"value": 2500, "currency": "EUR"}, "merchantAccount": e.Account.MerchantAccount,
			"reference": "adyen-order-1", "description": "Two tickets", "expiresAt": exp.Format(time.RFC3339), "manualCapture": true,
			"returnUrl": "https://shop.example.com/done", "shopperLocale": "ru-KZ", "countryCode": "KZ", "metadata": map[string]any{"cart": "9"},
			"applicationInfo": map[string]any{"adyenLibrary": map[string]any{"name": "adyen-node-api-library", "version": "25.0.0"}}}
		key := e.key()
		r := e.Do("POST", "/v2/paymentLinks", body, "Idempotency-Key", key)
		require.Equal(t, 201, r.Status, "%s", r.Body)
		adyenValid(t, "PaymentLinkResponse", r.Body)
		v2 := r.Map(t)
		id := v2["id"].(string)
		assert.Equal(t, "active", v2["status"])
		assert.Equal(t, e.Account.MerchantAccount, v2["merchantAccount"])
		assert.Equal(t, "adyen-order-1", v2["reference"])
		assert.Equal(t, true, v2["manualCapture"])
		assert.Equal(t, exp.Format(time.RFC3339), v2["expiresAt"])
		// A retry with the key replays Adyen's answer, not the /v1 one.
		again := e.Do("POST", "/v2/paymentLinks", body, "Idempotency-Key", key)
		require.Equal(t, 201, again.Status)
		assert.JSONEq(t, string(r.Body), string(again.Body))

		v1 := e.get(id)
		assert.Equal(t, "active", v1["status"])
		assert.Equal(t, "adyen-order-1", v1["order_reference"])
		assert.Equal(t, "manual", v1["capture"])
		assert.Equal(t, "https://shop.example.com/done", v1["success_url"])
		assert.Equal(t, "ru-KZ", v1["shopper_locale"])
		assert.Equal(t, map[string]any{"value": 2500.0, "currency": "EUR"}, v1["amount"])
		assert.Equal(t, v2["url"], v1["url"])

		// Created on /v1, read on /v2; paid on its page, completed on /v2.
		other := e.create(nil)
		oid := other["id"].(string)
		g := e.Do("GET", "/v2/paymentLinks/"+oid, nil)
		require.Equal(t, 200, g.Status, "%s", g.Body)
		adyenValid(t, "PaymentLinkResponse", g.Body)
		assert.Equal(t, "order-42", g.Map(t)["reference"])
		s := e.open(oid)
		require.Equal(t, 200, e.pay(oid, s, "4111111111111111").Status)
		g = e.Do("GET", "/v2/paymentLinks/"+oid, nil)
		assert.Equal(t, "completed", g.Map(t)["status"])
		p := e.Do("PATCH", "/v2/paymentLinks/"+oid, map[string]any{"status": "expired"})
		assert.Equal(t, 409, p.Status, "a paid link cannot be expired: %s", p.Body)

		// Expired on /v2: cancelled on /v1, and it takes no payment.
		p = e.Do("PATCH", "/v2/paymentLinks/"+id, map[string]any{"status": "expired"})
		require.Equal(t, 200, p.Status, "%s", p.Body)
		adyenValid(t, "PaymentLinkResponse", p.Body)
		assert.Equal(t, "expired", p.Map(t)["status"])
		assert.Equal(t, "cancelled", e.get(id)["status"])
		assert.Equal(t, 1, count(e.events(e.Account.ID, id), "payment_link.cancelled"))
		p = e.Do("PATCH", "/v2/paymentLinks/"+id, map[string]any{"status": "expired"})
		require.Equal(t, 200, p.Status, "expiring an ended link again answers it as it is: %s", p.Body)
		assert.Equal(t, 1, count(e.events(e.Account.ID, id), "payment_link.cancelled"), "no second event")

		// An empty shopperLocale is no locale, as on checkout's Adyen face.
		blank := e.Do("POST", "/v2/paymentLinks", map[string]any{"amount": map[string]any{"value": 100, "currency": "EUR"},
			"merchantAccount": e.Account.MerchantAccount, "reference": "adyen-order-2", "shopperLocale": ""}, "Idempotency-Key", e.key())
		require.Equal(t, 201, blank.Status, "%s", blank.Body)
		adyenValid(t, "PaymentLinkResponse", blank.Body)
		assert.Nil(t, e.get(blank.Map(t)["id"].(string))["shopper_locale"])
	})
}

// TestAdyenFaceBadInput: each bad request is a 4xx naming Adyen's field,
// and stores nothing; another account's link is a 404.
func TestAdyenFaceBadInput(t *testing.T) {
	e := newEnv(t, embedded)
	ok := func() map[string]any {
		return map[string]any{"amount": map[string]any{"value": 100, "currency": "EUR"}, "merchantAccount": e.Account.MerchantAccount, "reference": "ref-1"}
	}
	cases := []struct {
		name   string
		change map[string]any
		status int
		param  string
	}{
		{"no reference", map[string]any{"reference": nil}, 400, "reference"},
		{"reference too short", map[string]any{"reference": "ab"}, 400, "reference"},
		{"no merchantAccount", map[string]any{"merchantAccount": nil}, 400, "merchantAccount"},
		{"another merchantAccount", map[string]any{"merchantAccount": "SomeoneElse"}, 400, "merchantAccount"},
		{"expiresAt in the past", map[string]any{"expiresAt": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)}, 400, "expiresAt"},
		{"returnUrl not http(s)", map[string]any{"returnUrl": "ftp://shop.example.com/"}, 400, "returnUrl"},
		{"amount zero", map[string]any{"amount": map[string]any{"value": 0, "currency": "EUR"}}, 400, "amount.value"},
		{"reusable links", map[string]any{"reusable": true}, 400, "reusable"},
		{"shopperLocale", map[string]any{"shopperLocale": "russian"}, 400, "shopperLocale"},
	}
	for _, c := range cases {
		b := ok()
		for k, v := range c.change {
			if v == nil {
				delete(b, k)
			} else {
				b[k] = v
			}
		}
		r := e.Do("POST", "/v2/paymentLinks", b, "Idempotency-Key", e.key())
		require.Equal(t, c.status, r.Status, "%s: %s", c.name, r.Body)
		_, param := errCode(t, r)
		assert.Equal(t, c.param, param, c.name)
	}
	assert.Empty(t, e.Do("GET", "/v1/payment-links", nil).Map(t)["data"], "nothing stored")

	id := e.create(nil)["id"].(string)
	for _, bad := range []string{"PL123", "not-a-uuid"} {
		r := e.Do("GET", "/v2/paymentLinks/"+bad, nil)
		assert.Equal(t, 400, r.Status, bad)
	}
	r := e.Do("PATCH", "/v2/paymentLinks/"+id, map[string]any{"status": "active"})
	assert.Equal(t, 400, r.Status, "%s", r.Body)
	_, otherKey := e.NewAccount(accounts.Test)
	for _, c := range []struct{ method, path string }{{"GET", "/v2/paymentLinks/" + id}, {"PATCH", "/v2/paymentLinks/" + id}} {
		var body any
		if c.method == "PATCH" {
			body = map[string]any{"status": "expired"}
		}
		r := e.DoKey(otherKey, c.method, c.path, body)
		assert.Equal(t, 404, r.Status, "%s %s: %s", c.method, c.path, r.Body)
	}
	assert.Equal(t, "active", e.get(id)["status"], "nothing changed")
	assert.Equal(t, 404, e.Do("GET", "/v2/paymentLinks/"+uuid.NewString(), nil).Status)
}

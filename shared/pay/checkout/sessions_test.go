package checkout_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCreateSessionAndResult(t *testing.T) {
	e := newEnv(t)
	now := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	e.Clock.Set(now)
	r := e.Do("POST", "/v2/sessions", sessionBody(e, map[string]any{"lineItems": []any{map[string]any{"id": "1", "description": "Shoes", "quantity": 1, "amountIncludingTax": 1000}}}))
	require.Equal(t, 201, r.Status, "%s", r.Body)
	adyenValid(t, "CreateCheckoutSessionResponse", r.Body)
	m := r.Map(t)
	assert.Equal(t, "2024-05-01T11:00:00Z", m["expiresAt"], "default expiry is one hour")
	assert.Equal(t, "en-US", m["shopperLocale"])
	assert.Equal(t, e.Account.MerchantAccount, m["merchantAccount"])
	assert.NotEmpty(t, m["sessionData"])

	// merchantAccount may be left out: it is the key's.
	r = e.Do("POST", "/v2/sessions", sessionBody(e, map[string]any{"merchantAccount": nil, "expiresAt": "2024-05-01T14:00:00+02:00"}))
	require.Equal(t, 201, r.Status, "%s", r.Body)
	assert.Equal(t, "2024-05-01T12:00:00Z", r.Map(t)["expiresAt"])

	g := e.Do("GET", "/v2/sessions/"+m["id"].(string)+"?sessionResult=abc", nil)
	require.Equal(t, 200, g.Status, "%s", g.Body)
	adyenValid(t, "SessionResultResponse", g.Body)
	assert.Equal(t, "active", g.Map(t)["status"])

	// Another account's session is a 404, like a missing one.
	_, other := e.NewAccount("test")
	assert.Equal(t, 404, e.DoKey(other, "GET", "/v2/sessions/"+m["id"].(string), nil).Status)
	assert.Equal(t, 404, e.Do("GET", "/v2/sessions/CSNOPE", nil).Status)

	// Past expiry the result says expired.
	e.Clock.Advance(2 * time.Hour)
	g = e.Do("GET", "/v2/sessions/"+m["id"].(string), nil)
	assert.Equal(t, "expired", g.Map(t)["status"])
}

func TestCreateSessionRules(t *testing.T) {
	e := newEnv(t)
	now := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	e.Clock.Set(now)
	cases := []struct {
		name  string
		extra map[string]any
		param string
	}{
		{"reference too short", map[string]any{"reference": "ab"}, "reference"},
		{"reference missing", map[string]any{"reference": nil}, "reference"},
		{"returnUrl too long", map[string]any{"returnUrl": "https://shop.example.com/" + strings.Repeat("a", 1001)}, "returnUrl"},
		{"returnUrl missing", map[string]any{"returnUrl": nil}, "returnUrl"},
		{"returnUrl with an e-mail", map[string]any{"returnUrl": "https://shop.example.com/r?u=jane@example.org"}, "returnUrl"},
		{"returnUrl with the encoded shopperEmail", map[string]any{"shopperEmail": "jane@example.org", "returnUrl": "https://shop.example.com/r?u=jane%40example.org"}, "returnUrl"},
		{"expiresAt in the past", map[string]any{"expiresAt": "2024-05-01T09:00:00Z"}, "expiresAt"},
		{"expiresAt beyond 24h", map[string]any{"expiresAt": "2024-05-02T10:00:01Z"}, "expiresAt"},
		{"expiresAt without zone", map[string]any{"expiresAt": "2024-05-01T12:00:00"}, "expiresAt"},
		{"shopperReference too short", map[string]any{"shopperReference": "ab"}, "shopperReference"},
		{"shopperReference with an e-mail", map[string]any{"shopperReference": "jane@example.org"}, "shopperReference"},
		{"transactionType unknown", map[string]any{"transactionType": "refund"}, "transactionType"},
		{"channel unknown", map[string]any{"channel": "Windows"}, "channel"},
		{"shopperLocale malformed", map[string]any{"shopperLocale": "english"}, "shopperLocale"},
		{"amount missing", map[string]any{"amount": nil}, "amount"},
		{"amount.value not an integer", map[string]any{"amount": map[string]any{"value": 10.5, "currency": "EUR"}}, "amount.value"},
		{"amount.value negative", map[string]any{"amount": map[string]any{"value": -1, "currency": "EUR"}}, "amount.value"},
		{"amount.value zero for a sale", map[string]any{"amount": map[string]any{"value": 0, "currency": "EUR"}}, "amount.value"},
		{"amount.currency unknown", map[string]any{"amount": map[string]any{"value": 100, "currency": "XYZ"}}, "amount.currency"},
		{"amount.currency lower case", map[string]any{"amount": map[string]any{"value": 100, "currency": "eur"}}, "amount.currency"},
		{"merchantAccount of another merchant", map[string]any{"merchantAccount": "SomeoneElse"}, "merchantAccount"},
		{"countryCode not ISO 3166", map[string]any{"countryCode": "XX"}, "countryCode"},
		{"countryCode lower case", map[string]any{"countryCode": "nl"}, "countryCode"},
		{"shopperEmail malformed", map[string]any{"shopperEmail": "jane"}, "shopperEmail"},
		{"unknown field", map[string]any{"colour": "red"}, "colour"},
		{"reference with a NUL", map[string]any{"reference": "order\x0042"}, "reference"},
		{"reference with a bidi override", map[string]any{"reference": "order-\u202e24"}, "reference"},
		{"shopperReference with a control character", map[string]any{"shopperReference": "shopper\x1b1"}, "shopperReference"},
		{"metadata key with a bidi isolate", map[string]any{"metadata": map[string]any{"k\u2066": "v"}}, "metadata"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", "/v2/sessions", sessionBody(e, c.extra))
			require.Equal(t, 400, r.Status, "%s", r.Body)
			assert.Equal(t, c.param, r.Err(t)["param"], "%s", r.Body)
		})
	}
	// A validation session may have amount 0.
	r := e.Do("POST", "/v2/sessions", sessionBody(e, map[string]any{"transactionType": "validation", "amount": map[string]any{"value": 0, "currency": "EUR"}, "channel": "iOS", "shopperLocale": "nl-NL", "shopperReference": "shopper-1"}))
	assert.Equal(t, 201, r.Status, "%s", r.Body)
}

func TestCreateSessionIdempotent(t *testing.T) {
	e := newEnv(t)
	body := sessionBody(e, nil)
	a := e.Do("POST", "/v2/sessions", body, "Idempotency-Key", "sess-1")
	b := e.Do("POST", "/v2/sessions", body, "Idempotency-Key", "sess-1")
	require.Equal(t, 201, a.Status)
	require.Equal(t, 201, b.Status)
	assert.Equal(t, a.Map(t)["id"], b.Map(t)["id"])
	assert.Equal(t, "true", b.Header.Get("Idempotent-Replayed"))
	c := e.Do("POST", "/v2/sessions", sessionBody(e, map[string]any{"reference": "other-ref"}), "Idempotency-Key", "sess-1")
	assert.Equal(t, 422, c.Status)
	d := e.Do("POST", "/v2/sessions", body, "Idempotency-Key", strings.Repeat("k", 256))
	assert.Equal(t, 400, d.Status)
}

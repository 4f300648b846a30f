package links_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/pay/links"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// TestCreateGetList: a link with every field answers 201 with its id, url and
// status, reads back the same, lists and is found by order reference; the
// same key and body replay it, another body with that key is 422.
func TestCreateGetList(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		customer := e.customer(e.Account.ID)
		exp := e.Clock.Now().Add(48 * time.Hour).Truncate(time.Second)
		body := linkBody(map[string]any{"expires_at": rfc(exp), "customer_id": customer, "capture": "manual",
			"success_url": "https://shop.example.com/ok", "failure_url": "https://shop.example.com/failed",
			"cancel_url": "http://localhost:3000/cart", "shopper_locale": "ru-KZ", "country_code": "KZ",
			"metadata": map[string]any{"cart": "c-1"}})
		r := e.Do("POST", "/v1/payment-links", body, "Idempotency-Key", "link-1")
		require.Equal(t, 201, r.Status, "%s", r.Body)
		l := r.Map(t)
		id := l["id"].(string)
		require.NoError(t, uuid.Validate(id))
		assert.Equal(t, "payment_link", l["object"])
		assert.Equal(t, "active", l["status"])
		assert.Equal(t, e.URL+"/pay/"+id, l["url"])
		assert.Equal(t, map[string]any{"value": 1000.0, "currency": "EUR"}, l["amount"])
		assert.Equal(t, "Order 42: two gift cards", l["description"])
		assert.Equal(t, "order-42", l["order_reference"])
		assert.Equal(t, customer, l["customer_id"])
		assert.Equal(t, "manual", l["capture"])
		assert.Equal(t, rfc(exp), l["expires_at"])
		assert.Equal(t, false, l["livemode"])
		assert.Equal(t, map[string]any{"cart": "c-1"}, l["metadata"])

		again := e.Do("POST", "/v1/payment-links", body, "Idempotency-Key", "link-1")
		require.Equal(t, 201, again.Status)
		assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, string(r.Body), string(again.Body))
		other := e.Do("POST", "/v1/payment-links", linkBody(nil), "Idempotency-Key", "link-1")
		require.Equal(t, 422, other.Status, "%s", other.Body)

		assert.Equal(t, l, e.get(id))
		second := e.create(map[string]any{"order_reference": nil, "description": nil})
		assert.Equal(t, "automatic", second["capture"], "automatic by default")
		assert.WithinDuration(t, e.Clock.Now().Add(24*time.Hour), mustTime(t, second["expires_at"]), time.Minute, "24 hours by default")

		list := e.Do("GET", "/v1/payment-links?limit=1", nil)
		require.Equal(t, 200, list.Status)
		page := list.Map(t)
		assert.Equal(t, true, page["has_more"])
		assert.Equal(t, second["id"], page["data"].([]any)[0].(map[string]any)["id"], "newest first")
		next := e.Do("GET", "/v1/payment-links?limit=1&cursor="+page["next_cursor"].(string), nil).Map(t)
		assert.Equal(t, id, next["data"].([]any)[0].(map[string]any)["id"])

		byRef := e.Do("GET", "/v1/payment-links/by-order-reference/order-42", nil).Map(t)
		require.Len(t, byRef["data"], 1)
		assert.Equal(t, id, byRef["data"].([]any)[0].(map[string]any)["id"])
		assert.Empty(t, e.Do("GET", "/v1/payment-links/by-order-reference/order-43", nil).Map(t)["data"])
	})
}

func mustTime(t *testing.T, v any) time.Time {
	tm, err := time.Parse(time.RFC3339, v.(string))
	require.NoError(t, err)
	return tm
}

// TestBadInput: each rule is a 400 naming its field, and nothing is stored.
func TestBadInput(t *testing.T) {
	e := newEnv(t, embedded)
	now := e.Clock.Now()
	long := "https://shop.example.com/" + strings.Repeat("a", 1000)
	cases := []struct {
		name  string
		extra map[string]any
		param string
	}{
		{"expires_at in the past", map[string]any{"expires_at": rfc(now.Add(-time.Minute))}, "expires_at"},
		{"expires_at now", map[string]any{"expires_at": rfc(now.Add(-time.Second))}, "expires_at"},
		{"expires_at past 90 days", map[string]any{"expires_at": rfc(now.Add(91 * 24 * time.Hour))}, "expires_at"},
		{"expires_at not a date", map[string]any{"expires_at": "tomorrow"}, "expires_at"},
		{"success_url not http(s)", map[string]any{"success_url": "ftp://shop.example.com/ok"}, "success_url"},
		{"success_url javascript", map[string]any{"success_url": "javascript:alert(1)"}, "success_url"},
		{"success_url relative", map[string]any{"success_url": "/ok"}, "success_url"},
		{"success_url with credentials", map[string]any{"success_url": "https://user:pw@shop.example.com/"}, "success_url"},
		{"success_url over 1024", map[string]any{"success_url": long}, "success_url"},
		{"failure_url not http(s)", map[string]any{"failure_url": "mailto:a@example.com"}, "failure_url"},
		{"cancel_url over 1024", map[string]any{"cancel_url": long}, "cancel_url"},
		{"no amount", map[string]any{"amount": nil}, "amount"},
		{"zero amount", map[string]any{"amount": map[string]any{"value": 0, "currency": "EUR"}}, "amount.value"},
		{"negative amount", map[string]any{"amount": map[string]any{"value": -5, "currency": "EUR"}}, "amount.value"},
		{"amount over the maximum", map[string]any{"amount": map[string]any{"value": 1000000000000001, "currency": "EUR"}}, "amount.value"},
		{"unknown currency", map[string]any{"amount": map[string]any{"value": 5, "currency": "XYZ"}}, "amount.currency"},
		{"no currency", map[string]any{"amount": map[string]any{"value": 5}}, "amount.currency"},
		{"capture unknown", map[string]any{"capture": "later"}, "capture"},
		{"customer_id not a UUID", map[string]any{"customer_id": "cus_1"}, "customer_id"},
		{"order_reference too short", map[string]any{"order_reference": "ab"}, "order_reference"},
		{"description too long", map[string]any{"description": strings.Repeat("d", 501)}, "description"},
		{"shopper_locale", map[string]any{"shopper_locale": "russian"}, "shopper_locale"},
		{"country_code", map[string]any{"country_code": "XX"}, "country_code"},
		{"metadata key too long", map[string]any{"metadata": map[string]any{strings.Repeat("k", 41): "v"}}, "metadata"},
		{"unknown field", map[string]any{"autoClearing": true}, "autoClearing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", "/v1/payment-links", linkBody(c.extra), "Idempotency-Key", e.key())
			require.Equal(t, 400, r.Status, "%s", r.Body)
			_, param := errCode(t, r)
			assert.Equal(t, c.param, param)
		})
	}
	// customer_id must name one of the caller's customers: a missing one and
	// another account's are the same 404 naming it.
	other, _ := e.NewAccount(accounts.Test)
	for _, id := range []string{uuid.NewString(), e.customer(other.ID)} {
		r := e.Do("POST", "/v1/payment-links", linkBody(map[string]any{"customer_id": id}), "Idempotency-Key", e.key())
		require.Equal(t, 404, r.Status, "%s", r.Body)
		_, param := errCode(t, r)
		assert.Equal(t, "customer_id", param)
	}
	assert.Empty(t, e.Do("GET", "/v1/payment-links", nil).Map(t)["data"], "nothing stored")
}

// TestAnotherAccountsLinkIs404: every API route answers another account's
// link as a missing one, and changes nothing.
func TestAnotherAccountsLinkIs404(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		l := e.create(nil)
		id := l["id"].(string)
		_, otherKey := e.NewAccount(accounts.Test)
		for _, c := range []struct{ method, path string }{
			{"GET", "/v1/payment-links/" + id},
			{"POST", "/v1/payment-links/" + id + "/cancel"},
			{"POST", "/v1/payment-links/" + id + "/expiration"},
			{"GET", "/v1/transactions/by-payment-link/" + id},
		} {
			var body any
			if strings.HasSuffix(c.path, "expiration") {
				body = map[string]any{"expires_at": rfc(e.Clock.Now().Add(time.Hour))}
			}
			r := e.DoKey(otherKey, c.method, c.path, body, "Idempotency-Key", e.key())
			assert.Equal(t, 404, r.Status, "%s %s: %s", c.method, c.path, r.Body)
		}
		assert.Empty(t, e.DoKey(otherKey, "GET", "/v1/payment-links", nil).Map(t)["data"])
		assert.Empty(t, e.DoKey(otherKey, "GET", "/v1/payment-links/by-order-reference/order-42", nil).Map(t)["data"])
		assert.Equal(t, l, e.get(id), "unchanged")
		r := e.Do("GET", "/v1/payment-links/"+uuid.NewString(), nil)
		assert.Equal(t, 404, r.Status)
		r = e.Do("GET", "/v1/payment-links/not-a-uuid", nil)
		assert.Equal(t, 400, r.Status)
	})
}

// TestCancelAndExpiration: an active link is cancelled once (its event
// once), then refuses a second cancel, an expiration update and a payment
// (409); its page says so. The expiry moves only to a time later than now
// and within 90 days.
func TestCancelAndExpiration(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		id := e.create(nil)["id"].(string)
		now := e.Clock.Now()

		for _, c := range []struct {
			at    string
			param string
		}{{rfc(now.Add(-time.Hour)), "expires_at"}, {rfc(now.Add(90*24*time.Hour + time.Hour)), "expires_at"}, {"soon", "expires_at"}} {
			r := e.Do("POST", "/v1/payment-links/"+id+"/expiration", map[string]any{"expires_at": c.at})
			require.Equal(t, 400, r.Status, "%s", r.Body)
			_, p := errCode(t, r)
			assert.Equal(t, c.param, p)
		}
		r := e.Do("POST", "/v1/payment-links/"+id+"/expiration", map[string]any{})
		assert.Equal(t, 400, r.Status, "expires_at is required")

		later := now.Add(30 * 24 * time.Hour).Truncate(time.Second)
		r = e.Do("POST", "/v1/payment-links/"+id+"/expiration", map[string]any{"expires_at": rfc(later)}, "Idempotency-Key", "exp-1")
		require.Equal(t, 200, r.Status, "%s", r.Body)
		assert.Equal(t, rfc(later), r.Map(t)["expires_at"])
		sooner := now.Add(2 * time.Hour).Truncate(time.Second)
		r = e.Do("POST", "/v1/payment-links/"+id+"/expiration", map[string]any{"expires_at": rfc(sooner)})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		assert.Equal(t, rfc(sooner), e.get(id)["expires_at"])

		r = e.Do("POST", "/v1/payment-links/"+id+"/cancel", nil, "Idempotency-Key", "cancel-1")
		require.Equal(t, 200, r.Status, "%s", r.Body)
		assert.Equal(t, "cancelled", r.Map(t)["status"])
		assert.NotEmpty(t, r.Map(t)["cancelled_at"])
		replay := e.Do("POST", "/v1/payment-links/"+id+"/cancel", nil, "Idempotency-Key", "cancel-1")
		assert.Equal(t, "true", replay.Header.Get("Idempotent-Replayed"))
		for _, r := range []*apitest.Resp{
			e.Do("POST", "/v1/payment-links/"+id+"/cancel", nil, "Idempotency-Key", e.key()),
			e.Do("POST", "/v1/payment-links/"+id+"/expiration", map[string]any{"expires_at": rfc(later)}),
		} {
			require.Equal(t, 409, r.Status, "%s", r.Body)
			code, _ := errCode(t, r)
			assert.Equal(t, "payment_link_cancelled", code)
		}
		assert.Equal(t, 1, count(e.events(e.Account.ID, id), links.EventCancelled))

		page := e.page("GET", "/pay/"+id, nil)
		require.Equal(t, 200, page.Status)
		assert.Contains(t, string(page.Body), "Link cancelled")
		assert.NotContains(t, string(page.Body), "dropin.js", "no Drop-in on a cancelled link's page")
		r = e.page("POST", "/pay/"+id+"/session", nil)
		require.Equal(t, 409, r.Status)
		code, _ := errCode(t, r)
		assert.Equal(t, "payment_link_cancelled", code)
	})
}

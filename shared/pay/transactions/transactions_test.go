package transactions

import (
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/accounts"
)

// TestReadRoutes: get, list (every filter), by order reference (attempts
// and refunds), by payment link (the successful one, else the latest; 404
// and 400), history; on both stores.
func TestReadRoutes(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		cust := ids.New()
		link := ids.New()
		refused := e.seed(seed{ref: "ord-1", status: payments.Rejected, link: link})
		paid := e.seed(seed{ref: "ord-1", status: payments.Charged, customer: cust, link: link})
		other := e.seed(seed{ref: "ord-2", status: payments.Authorized, amount: 500, currency: "USD"})
		r := e.post("/v1/transactions/"+paid+"/refund", map[string]any{"amount": 2500, "reason": "damaged"})
		require.Equal(t, 200, r.Status, string(r.Body))
		refund := r.Map(t)
		assert.Equal(t, "refund", refund["type"])
		assert.Equal(t, paid, refund["parent_transaction_id"])
		assert.EqualValues(t, 2500, refund["amount"])
		assert.Equal(t, "refunded", refund["status"])

		got := e.get(paid)
		for _, f := range []string{"id", "type", "status", "amount", "processed_amount", "refunded_amount", "balance", "capturable_amount",
			"currency", "payment_method", "last4", "merchant_reference", "secure3d", "customer_id", "payment_link_id",
			"livemode", "created_at", "updated_at", "authed_at", "captured_at", "metadata"} {
			assert.Contains(t, got, f)
		}
		for _, f := range []string{"internal", "history", "paymentMethod", "account_id"} {
			assert.NotContains(t, got, f, "internal or camelCase field shown")
		}
		assert.Equal(t, "partially_refunded", got["status"])
		assert.EqualValues(t, 10000, got["processed_amount"])
		assert.EqualValues(t, 2500, got["refunded_amount"])
		assert.EqualValues(t, 7500, got["balance"])
		assert.EqualValues(t, 0, got["capturable_amount"])
		assert.Contains(t, e.get(other), "authorization_expires_at")

		list := func(q string) []string {
			t.Helper()
			r := e.Do("GET", "/v1/transactions?"+q, nil)
			require.Equal(t, 200, r.Status, string(r.Body))
			var page struct {
				Data []map[string]any `json:"data"`
			}
			r.JSON(t, &page)
			var out []string
			for _, d := range page.Data {
				out = append(out, d["id"].(string))
			}
			return out
		}
		refundID := refund["id"].(string)
		assert.Equal(t, []string{refundID, other, paid, refused}, list(""), "newest first")
		assert.Equal(t, []string{refundID}, list("type=refund"))
		assert.Equal(t, []string{other}, list("status=authorized"))
		assert.Equal(t, []string{refundID, paid, refused}, list("order_reference=ord-1"))
		assert.Equal(t, []string{refundID, paid}, list("customer_id="+cust))
		assert.Empty(t, list("created_to="+url.QueryEscape(time.Now().Add(-time.Hour).UTC().Format(time.RFC3339))))
		assert.Len(t, list("created_from="+url.QueryEscape(time.Now().Add(-time.Hour).UTC().Format(time.RFC3339))), 4)
		// Paging: two pages of two, the cursor bound to the list.
		r = e.Do("GET", "/v1/transactions?limit=2", nil)
		require.Equal(t, 200, r.Status)
		p1 := r.Map(t)
		require.Equal(t, true, p1["has_more"])
		r = e.Do("GET", "/v1/transactions?limit=2&cursor="+p1["next_cursor"].(string), nil)
		require.Equal(t, 200, r.Status)
		assert.Len(t, r.Map(t)["data"], 2)

		r = e.Do("GET", "/v1/transactions/by-order-reference/ord-1", nil)
		require.Equal(t, 200, r.Status, string(r.Body))
		var byRef struct {
			Data []map[string]any `json:"data"`
		}
		r.JSON(t, &byRef)
		var refIDs []string
		for _, d := range byRef.Data {
			refIDs = append(refIDs, d["id"].(string))
		}
		assert.Equal(t, []string{refundID, paid, refused}, refIDs, "every attempt and the refund, newest first")
		r = e.Do("GET", "/v1/transactions/by-order-reference/no-such-order", nil)
		require.Equal(t, 200, r.Status)
		assert.Empty(t, r.Map(t)["data"])

		r = e.Do("GET", "/v1/transactions/by-payment-link/"+link, nil)
		require.Equal(t, 200, r.Status, string(r.Body))
		assert.Equal(t, paid, r.Map(t)["id"], "the successful transaction, not the later refund nor the refused attempt")
		onlyRefused := ids.New()
		failed := e.seed(seed{status: payments.Rejected, link: onlyRefused})
		e.seed(seed{status: payments.Created, link: onlyRefused})
		created := e.seed(seed{status: payments.Created, link: onlyRefused})
		_ = failed
		r = e.Do("GET", "/v1/transactions/by-payment-link/"+onlyRefused, nil)
		require.Equal(t, 200, r.Status)
		assert.Equal(t, created, r.Map(t)["id"], "no success: the latest")
		assert.Equal(t, 404, e.Do("GET", "/v1/transactions/by-payment-link/"+ids.New(), nil).Status)
		r = e.Do("GET", "/v1/transactions/by-payment-link/not-a-uuid", nil)
		require.Equal(t, 400, r.Status)
		_, param, _ := errParam(t, r)
		assert.Equal(t, "payment_link_id", param)

		r = e.Do("GET", "/v1/transactions/"+paid+"/history", nil)
		require.Equal(t, 200, r.Status, string(r.Body))
		var hist struct {
			Data []map[string]any `json:"data"`
		}
		r.JSON(t, &hist)
		require.Len(t, hist.Data, 4)
		assert.NotContains(t, hist.Data[0], "from")
		assert.Equal(t, "created", hist.Data[0]["to"])
		assert.Equal(t, []any{"created", "authorized", "authorized", "charged"}, []any{hist.Data[1]["from"], hist.Data[1]["to"], hist.Data[2]["from"], hist.Data[2]["to"]})
		last := hist.Data[3]
		assert.Equal(t, "charged", last["from"])
		assert.Equal(t, "partially_refunded", last["to"])
		assert.EqualValues(t, 2500, last["amount"])
		assert.Equal(t, "damaged", last["reason"])
		assert.NotEmpty(t, r.Header.Get("Request-Id"))
		assert.NotEmpty(t, last["request_id"], "the refund's request id")
		assert.Equal(t, 404, e.Do("GET", "/v1/transactions/"+paid+"/nothing", nil).Status)
		assert.Equal(t, 404, e.Do("GET", "/v1/transactions/"+ids.New(), nil).Status)
		r = e.Do("GET", "/v1/transactions/nope", nil)
		require.Equal(t, 400, r.Status)
	})
}

// TestCaptureCancelRefund: partial captures until final, the rest
// released; a refund per call, each its own transaction; an event per
// change; on both stores.
func TestCaptureCancelRefund(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		id := e.seed(seed{amount: 10000})
		r := e.post("/v1/transactions/"+id+"/capture", map[string]any{"amount": 3000})
		require.Equal(t, 200, r.Status, string(r.Body))
		m := r.Map(t)
		assert.Equal(t, "charged", m["status"])
		assert.EqualValues(t, 3000, m["processed_amount"])
		assert.EqualValues(t, 7000, m["capturable_amount"])
		assert.NotContains(t, m, "authorization_expires_at")
		r = e.post("/v1/transactions/"+id+"/capture", map[string]any{"amount": 2000, "final": true, "currency": "EUR"})
		require.Equal(t, 200, r.Status, string(r.Body))
		m = r.Map(t)
		assert.EqualValues(t, 5000, m["processed_amount"])
		assert.EqualValues(t, 0, m["capturable_amount"], "final: the rest is released")
		r = e.post("/v1/transactions/"+id+"/capture", nil)
		require.Equal(t, 409, r.Status, "capture closed")
		_, _, msg := errParam(t, r)
		assert.Contains(t, msg, "charged")

		r = e.post("/v1/transactions/"+id+"/refund", map[string]any{"amount": 1000})
		require.Equal(t, 200, r.Status, string(r.Body))
		r1 := r.Map(t)["id"].(string)
		r = e.post("/v1/transactions/"+id+"/refund", nil) // the rest
		require.Equal(t, 200, r.Status, string(r.Body))
		assert.EqualValues(t, 4000, r.Map(t)["amount"])
		p := e.get(id)
		assert.Equal(t, "refunded", p["status"])
		assert.EqualValues(t, 5000, p["refunded_amount"])
		assert.EqualValues(t, 0, p["balance"])
		assert.Equal(t, id, e.get(r1)["parent_transaction_id"])
		assert.ElementsMatch(t, []string{"payment.authorised", "payment.charged", "payment.charged", "payment.partially_refunded", "payment.refunded"}, e.events(id))

		// Cancel: an authorised payment is voided, its expiry entry removed.
		c := e.seed(seed{amount: 700})
		r = e.post("/v1/transactions/"+c+"/cancel", map[string]any{"reason": "out of stock"})
		require.Equal(t, 200, r.Status, string(r.Body))
		assert.Equal(t, "cancelled", r.Map(t)["status"])
		assert.ElementsMatch(t, []string{"payment.authorised", "payment.cancelled"}, e.events(c))
		assert.Equal(t, 0, e.expiryEntries(), "capture and cancel leave the expiry index")
		r = e.post("/v1/transactions/"+c+"/capture", nil)
		require.Equal(t, 409, r.Status)
		_, _, msg = errParam(t, r)
		assert.Contains(t, msg, "cancelled")
		r = e.post("/v1/transactions/"+id+"/cancel", nil)
		require.Equal(t, 409, r.Status, "a captured payment cannot be voided")
	})
}

// TestBadInput: each refused operation names its field (or the status in a
// 409) and changes nothing: no status, amount or event.
func TestBadInput(t *testing.T) {
	e := newEnv(t, backend{"embedded", nilStore})
	auth := e.seed(seed{amount: 1000})
	charged := e.seed(seed{status: payments.Charged, amount: 1000})
	refused := e.seed(seed{status: payments.Rejected})
	cases := []struct {
		name, path string
		body       any
		status     int
		param      string // 400: the field named; 409: a word of the message
	}{
		{"refund of a payment not captured", "/v1/transactions/" + auth + "/refund", nil, 409, "authorized"},
		{"capture of a refused payment", "/v1/transactions/" + refused + "/capture", nil, 409, "rejected"},
		{"cancel of a refused payment", "/v1/transactions/" + refused + "/cancel", nil, 409, "rejected"},
		{"zero amount", "/v1/transactions/" + auth + "/capture", map[string]any{"amount": 0}, 400, "amount"},
		{"negative amount", "/v1/transactions/" + charged + "/refund", map[string]any{"amount": -5}, 400, "amount"},
		{"capture above the authorised amount", "/v1/transactions/" + auth + "/capture", map[string]any{"amount": 1001}, 400, "amount"},
		{"refund above the balance", "/v1/transactions/" + charged + "/refund", map[string]any{"amount": 1001}, 400, "amount"},
		{"amount above 2^53", "/v1/transactions/" + ids.New() + "/refund", map[string]any{"amount": int64(1) << 54}, 400, "amount"},
		{"decimal amount", "/v1/transactions/" + charged + "/refund", `{"amount": 10.5}`, 400, "amount"},
		{"amount as a string", "/v1/transactions/" + charged + "/refund", `{"amount": "10"}`, 400, "amount"},
		{"amount as money", "/v1/transactions/" + charged + "/refund", map[string]any{"amount": map[string]any{"value": 10, "currency": "EUR"}}, 400, "amount"},
		{"another currency", "/v1/transactions/" + charged + "/refund", map[string]any{"amount": 10, "currency": "USD"}, 400, "currency"},
		{"empty currency", "/v1/transactions/" + charged + "/refund", map[string]any{"amount": 10, "currency": ""}, 400, "currency"},
		{"another currency on capture", "/v1/transactions/" + auth + "/capture", map[string]any{"currency": "KZT"}, 400, "currency"},
		{"malformed currency", "/v1/transactions/" + auth + "/capture", map[string]any{"currency": "eur"}, 400, "currency"},
		{"unknown field", "/v1/transactions/" + auth + "/capture", map[string]any{"amount": 5, "off_session": true}, 400, "off_session"},
		{"null", "/v1/transactions/" + auth + "/capture", `{"amount": null}`, 400, "amount"},
		{"final not a boolean", "/v1/transactions/" + auth + "/capture", `{"final": "yes"}`, 400, "final"},
		{"reason too long", "/v1/transactions/" + charged + "/refund", map[string]any{"reason": string(make([]byte, 501))}, 400, "reason"},
		{"id not a uuid", "/v1/transactions/abc/refund", nil, 400, "id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.post(c.path, c.body)
			require.Equal(t, c.status, r.Status, string(r.Body))
			_, param, msg := errParam(t, r)
			if c.status == 400 {
				assert.Equal(t, c.param, param)
			} else {
				assert.Contains(t, msg, c.param)
			}
		})
	}
	r := e.Do("POST", "/v1/transactions/"+charged+"/refund", nil)
	require.Equal(t, 400, r.Status, "no Idempotency-Key")
	_, param, _ := errParam(t, r)
	assert.Equal(t, "Idempotency-Key", param)

	assert.Equal(t, "authorized", e.get(auth)["status"])
	assert.EqualValues(t, 0, e.get(auth)["processed_amount"])
	assert.Equal(t, "charged", e.get(charged)["status"])
	assert.EqualValues(t, 0, e.get(charged)["refunded_amount"])
	assert.Equal(t, []string{"payment.authorised"}, e.events(auth))
	assert.ElementsMatch(t, []string{"payment.authorised", "payment.charged"}, e.events(charged))
}

// TestIdempotentRetry: the same key and body replay the first refund (one
// refund); another body under the key is a 422; the key's scope is the
// account.
func TestIdempotentRetry(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		id := e.seed(seed{status: payments.Charged, amount: 1000})
		body := map[string]any{"amount": 100}
		r1 := e.Do("POST", "/v1/transactions/"+id+"/refund", body, "Idempotency-Key", "refund-1")
		require.Equal(t, 200, r1.Status, string(r1.Body))
		r2 := e.Do("POST", "/v1/transactions/"+id+"/refund", body, "Idempotency-Key", "refund-1")
		require.Equal(t, 200, r2.Status)
		assert.Equal(t, "true", r2.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, r1.Map(t)["id"], r2.Map(t)["id"])
		r3 := e.Do("POST", "/v1/transactions/"+id+"/refund", map[string]any{"amount": 200}, "Idempotency-Key", "refund-1")
		assert.Equal(t, 422, r3.Status)
		p := e.get(id)
		assert.EqualValues(t, 100, p["refunded_amount"], "one refund")
		assert.Equal(t, []string{"payment.partially_refunded"}, filter(e.events(id), "payment.partially_refunded"))
	})
}

func filter(types []string, keep string) []string {
	return slices.DeleteFunc(slices.Clone(types), func(s string) bool { return s != keep })
}

// TestAnotherAccountIs404: another account's transaction answers 404 on
// every route, exactly as a missing one, and is not changed.
func TestAnotherAccountIs404(t *testing.T) {
	e := newEnv(t, backend{"embedded", nilStore})
	_, otherKey := e.NewAccount(accounts.Test)
	link := ids.New()
	auth := e.seed(seed{amount: 1000, ref: "mine", link: link})
	charged := e.seed(seed{status: payments.Charged, amount: 1000})
	for _, c := range []struct{ method, path string }{
		{"GET", "/v1/transactions/" + auth},
		{"GET", "/v1/transactions/" + auth + "/history"},
		{"GET", "/v1/transactions/by-payment-link/" + link},
		{"POST", "/v1/transactions/" + auth + "/capture"},
		{"POST", "/v1/transactions/" + auth + "/cancel"},
		{"POST", "/v1/transactions/" + charged + "/refund"},
	} {
		r := e.DoKey(otherKey, c.method, c.path, nil, "Idempotency-Key", e.key())
		assert.Equal(t, 404, r.Status, "%s %s: %s", c.method, c.path, r.Body)
	}
	for _, path := range []string{"/v1/transactions", "/v1/transactions/by-order-reference/mine"} {
		r := e.DoKey(otherKey, "GET", path, nil)
		require.Equal(t, 200, r.Status)
		assert.Empty(t, r.Map(t)["data"], path)
	}
	assert.Equal(t, "authorized", e.get(auth)["status"])
	assert.EqualValues(t, 0, e.get(charged)["refunded_amount"])
}

// TestVersions: requires_action reads 3d under 2023-06-01 and 2023-09-01 on
// every transaction route (history included), and metadata is only shown
// from 2024-01-15.
func TestVersions(t *testing.T) {
	e := newEnv(t, backend{"embedded", nilStore})
	link := ids.New()
	id := e.seed(seed{status: payments.RequiresAction, ref: "v-1", link: link})
	for _, v := range []string{"2023-06-01", "2023-09-01"} {
		h := []string{"Service-Version", v}
		m := e.Do("GET", "/v1/transactions/"+id, nil, h...).Map(t)
		assert.Equal(t, "3d", m["status"], v)
		assert.NotContains(t, m, "metadata", v)
		assert.Equal(t, "3d", e.Do("GET", "/v1/transactions/by-payment-link/"+link, nil, h...).Map(t)["status"], v)
		for _, path := range []string{"/v1/transactions", "/v1/transactions/by-order-reference/v-1", "/v1/transactions?status=requires_action"} {
			var page struct {
				Data []map[string]any `json:"data"`
			}
			e.Do("GET", path, nil, h...).JSON(t, &page)
			require.Len(t, page.Data, 1, path)
			assert.Equal(t, "3d", page.Data[0]["status"], "%s %s", v, path)
		}
		var hist struct {
			Data []map[string]any `json:"data"`
		}
		e.Do("GET", "/v1/transactions/"+id+"/history", nil, h...).JSON(t, &hist)
		require.Len(t, hist.Data, 2)
		assert.Equal(t, "3d", hist.Data[1]["to"], v)
		r := e.post("/v1/transactions/"+id+"/cancel", nil)
		require.Equal(t, 409, r.Status)
	}
	m := e.get(id)
	assert.Equal(t, "requires_action", m["status"])
	assert.Equal(t, map[string]any{"k": "v"}, m["metadata"])
}

// TestHistoryRouteIsNarrow: the history route is served through a wider Go
// pattern (/{id}/{sub}); what its declared path does not match is unmatched
// as anywhere else: a 404, or a 405 whose Allow lists only real methods.
func TestHistoryRouteIsNarrow(t *testing.T) {
	e := newEnv(t, backend{"embedded", nilStore})
	id := e.seed(seed{})
	r := e.Do("GET", "/v1/transactions/"+id+"/cancel", nil)
	assert.Equal(t, 405, r.Status, string(r.Body))
	assert.Equal(t, "POST", r.Header.Get("Allow"))
	r = e.Do("OPTIONS", "/v1/transactions/"+id+"/refund", nil)
	assert.Equal(t, 405, r.Status)
	assert.Equal(t, "POST", r.Header.Get("Allow"))
	r = e.Do("DELETE", "/v1/transactions/"+id+"/history", nil)
	assert.Equal(t, 405, r.Status)
	assert.Equal(t, "GET", r.Header.Get("Allow"))
	assert.Equal(t, 404, e.Do("GET", "/v1/transactions/"+id+"/other", nil).Status)
	assert.Equal(t, 200, e.Do("GET", "/v1/transactions/"+id+"/history", nil).Status)
	assert.Equal(t, 200, e.Do("GET", "/v1/transactions/by-order-reference/history", nil).Status, "the literal segment wins, as on API Gateway")
}

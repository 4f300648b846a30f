package customers

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/payments"
)

// TestRecurringOffSession: a subscription charge of a saved card is
// authorised and captured in one write (automatic capture, the default), or
// held (manual); a card enrolled in 3-D Secure never asks for it off
// session. The transaction names the token, its customer, the recurring
// type and the order reference.
func TestRecurringOffSession(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		s := e.saveCard("sub-shopper", "4111111111111111")
		body := recurring(s.token, "sub-2024-05")
		body["metadata"], body["description"] = map[string]any{"plan": "pro"}, "May"
		r := e.post("/v1/payments/recurring", body)
		require.Equal(t, 201, r.Status, "%s", r.Body)
		tx := r.Map(t)
		assert.Equal(t, "charged", tx["status"])
		assert.Equal(t, "automatic", tx["capture_mode"])
		assert.EqualValues(t, 2500, tx["amount"])
		assert.EqualValues(t, 2500, tx["processed_amount"])
		assert.Equal(t, "EUR", tx["currency"])
		assert.Equal(t, s.token, tx["card_token_id"])
		assert.Equal(t, s.customer, tx["customer_id"])
		assert.Equal(t, "subscription", tx["recurring_type"])
		assert.Equal(t, "sub-2024-05", tx["merchant_reference"])
		assert.Equal(t, "1111", tx["last4"])
		assert.Equal(t, map[string]any{"plan": "pro"}, tx["metadata"])
		assert.NotContains(t, tx, "next_action")
		assert.JSONEq(t, string(r.Body), string(mustJSON(t, e.tx(tx["id"].(string)))), "the answer is the transaction")
		h := e.list("/v1/transactions/" + tx["id"].(string) + "/history")
		require.Len(t, h, 3)
		assert.Equal(t, []any{"created", "authorized", "charged"}, []any{h[0]["to"], h[1]["to"], h[2]["to"]})
		assert.Equal(t, r.Header.Get("Request-Id"), h[1]["request_id"], "the authorisation names the request")
		assert.Equal(t, "automatic capture", h[2]["reason"])
		assert.Contains(t, idsOf(e.list("/v1/customers/"+s.customer+"/transactions")), tx["id"])
		assert.Contains(t, idsOf(e.list("/v1/transactions/by-order-reference/sub-2024-05")), tx["id"])

		manual := recurring(s.token, "sub-manual")
		manual["capture"], manual["recurring_type"] = "manual", "unscheduled"
		r = e.post("/v1/payments/recurring", manual)
		require.Equal(t, 201, r.Status, "%s", r.Body)
		assert.Equal(t, "authorized", r.Map(t)["status"])
		assert.EqualValues(t, 2500, r.Map(t)["capturable_amount"])
		cap := e.post("/v1/transactions/"+r.Map(t)["id"].(string)+"/capture", map[string]any{"amount": 1000})
		assert.Equal(t, 200, cap.Status, "%s", cap.Body)

		// 3-D Secure cards authorise off session (explicitly, or by the
		// type's default), never requires_action.
		for _, number := range []string{"4917610000000000", "5454545454545454", "4212345678901237"} {
			tok := e.saveCard3DS("tds-"+number, number)
			for _, off := range []any{true, nil} {
				b := recurring(tok, "tds-"+number)
				if off != nil {
					b["off_session"] = off
				}
				r := e.post("/v1/payments/recurring", b)
				require.Equal(t, 201, r.Status, "%s", r.Body)
				assert.Equal(t, "charged", r.Map(t)["status"], "%s off_session=%v", number, off)
				assert.NotContains(t, r.Map(t), "next_action")
			}
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := jsonMarshal(v)
	require.NoError(t, err)
	return b
}

// saveCard3DS saves a card that asks for 3-D Secure (or a redirect) on its
// first payment, completing it, and returns its token.
func (e *env) saveCard3DS(shopper, number string) string {
	e.T.Helper()
	r := e.post("/v2/payments", payment("save-"+shopper, shopper, card(number)))
	require.Equal(e.T, 200, r.Status, "%s", r.Body)
	p := r.Map(e.T)
	for i := 0; p["resultCode"] != "Authorised"; i++ {
		require.Less(e.T, i, 3, "%v", p)
		a := p["action"].(map[string]any)
		var d map[string]any
		switch {
		case a["type"] == "redirect":
			_, rr, _ := strings.Cut(a["url"].(string), "redirectResult=")
			d = map[string]any{"details": map[string]any{"redirectResult": rr}}
		case a["subtype"] == "challenge":
			d = map[string]any{"details": map[string]any{"threeDSResult": threeDS(a["authorisationToken"].(string), "Y")}}
		default:
			d = map[string]any{"details": map[string]any{"threeDSResult": threeDS(a["authorisationToken"].(string), "")}}
		}
		r = e.post("/v2/payments/details", d)
		require.Equal(e.T, 200, r.Status, "%s", r.Body)
		p = r.Map(e.T)
	}
	return e.tx(p["pspReference"].(string))["card_token_id"].(string)
}

// TestRecurringOnSessionThreeDS: an on-session charge (card_on_file, or
// off_session false) of a card enrolled in 3-D Secure waits for the
// shopper: requires_action with next_action, completed through checkout's
// /v2/payments/details and the sandbox challenge helper, after which the
// transaction is authorised and captured. A redirected card needs
// return_url.
func TestRecurringOnSessionThreeDS(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		challenge := e.saveCard3DS("cof-challenge", "5454545454545454")
		body := recurring(challenge, "cof-1")
		body["recurring_type"] = "card_on_file"
		r := e.post("/v1/payments/recurring", body)
		require.Equal(t, 201, r.Status, "%s", r.Body)
		tx := r.Map(t)
		id := tx["id"].(string)
		assert.Equal(t, "requires_action", tx["status"])
		assert.Equal(t, true, tx["secure3d"])
		na := tx["next_action"].(map[string]any)
		assert.Equal(t, "threeDS2", na["type"])
		assert.Equal(t, "fingerprint", na["subtype"])
		assert.Equal(t, "scheme", na["payment_method_type"])
		assert.NotEmpty(t, na["token"])
		pd := na["payment_data"].(string)

		d := e.post("/v2/payments/details", map[string]any{"details": map[string]any{"threeDSResult": threeDS(pd, "")}})
		require.Equal(t, 200, d.Status, "%s", d.Body)
		assert.Equal(t, "ChallengeShopper", d.Map(t)["resultCode"])
		assert.Equal(t, id, d.Map(t)["pspReference"])
		ch := e.post("/test-helpers/payments/"+id+"/challenge", map[string]any{"password": "password"})
		require.Equal(t, 200, ch.Status, "%s", ch.Body)
		assert.Equal(t, "Authorised", ch.Map(t)["resultCode"])
		got := e.tx(id)
		assert.Equal(t, "charged", got["status"], "authorised and captured (automatic) once the shopper passed")
		assert.Equal(t, challenge, got["card_token_id"])
		assert.Equal(t, "card_on_file", got["recurring_type"])

		// Frictionless, explicitly on session, completed by details alone.
		frictionless := e.saveCard3DS("on-frictionless", "4917610000000000")
		body = recurring(frictionless, "on-1")
		body["off_session"] = false
		r = e.post("/v1/payments/recurring", body)
		require.Equal(t, 201, r.Status, "%s", r.Body)
		require.Equal(t, "requires_action", r.Map(t)["status"])
		pd = r.Map(t)["next_action"].(map[string]any)["payment_data"].(string)
		d = e.post("/v2/payments/details", map[string]any{"details": map[string]any{"threeDSResult": threeDS(pd, "")}, "paymentData": pd})
		require.Equal(t, "Authorised", d.Map(t)["resultCode"], "%s", d.Body)
		assert.Equal(t, "charged", e.tx(r.Map(t)["id"].(string))["status"])

		// A redirected card on session needs return_url, then returns there.
		redirect := e.saveCard3DS("on-redirect", "4212345678901237")
		body = recurring(redirect, "on-2")
		body["recurring_type"] = "card_on_file"
		r = e.post("/v1/payments/recurring", body)
		require.Equal(t, 400, r.Status, "%s", r.Body)
		_, param := errOf(t, r)
		assert.Equal(t, "return_url", param)
		body["return_url"] = "https://shop.example.com/back"
		r = e.post("/v1/payments/recurring", body)
		require.Equal(t, 201, r.Status, "%s", r.Body)
		na = r.Map(t)["next_action"].(map[string]any)
		assert.Equal(t, "redirect", na["type"])
		assert.True(t, strings.HasPrefix(na["url"].(string), "https://shop.example.com/back?redirectResult="), na["url"])
		_, rr, _ := strings.Cut(na["url"].(string), "redirectResult=")
		d = e.post("/v2/payments/details", map[string]any{"details": map[string]any{"redirectResult": rr}})
		require.Equal(t, "Authorised", d.Map(t)["resultCode"], "%s", d.Body)
		assert.Equal(t, "charged", e.tx(r.Map(t)["id"].(string))["status"])

		// card_on_file is on session by definition.
		body = recurring(frictionless, "on-3")
		body["recurring_type"], body["off_session"] = "card_on_file", true
		r = e.post("/v1/payments/recurring", body)
		require.Equal(t, 400, r.Status, "%s", r.Body)
		code, param := errOf(t, r)
		assert.Equal(t, "off_session_not_allowed", code)
		assert.Equal(t, "off_session", param)
	})
}

// TestInsufficientFundsCard: 4000 0000 0000 0341 authorises the payment that
// saves it, then refuses every charge of its token: recurring (off or on
// session: a rejected transaction, refusal reason "Not enough balance",
// replayed as such with its key) and checkout's storedPaymentMethodId.
func TestInsufficientFundsCard(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		s := e.saveCard("broke-shopper", "4000000000000341")
		assert.Equal(t, "charged", e.tx(s.payment)["status"], "the first payment authorises")
		for _, typ := range []string{"subscription", "unscheduled", "card_on_file"} {
			body := recurring(s.token, "broke-"+typ)
			body["recurring_type"] = typ
			key := e.key()
			r := e.Do("POST", "/v1/payments/recurring", body, "Idempotency-Key", key)
			require.Equal(t, 201, r.Status, "%s", r.Body)
			assert.Equal(t, "rejected", r.Map(t)["status"], typ)
			assert.Equal(t, "Not enough balance", r.Map(t)["refusal_reason"])
			assert.EqualValues(t, 0, r.Map(t)["processed_amount"])
			again := e.Do("POST", "/v1/payments/recurring", body, "Idempotency-Key", key)
			assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
			assert.JSONEq(t, string(r.Body), string(again.Body))
		}
		co := e.post("/v2/payments", map[string]any{"amount": map[string]any{"value": 900, "currency": "EUR"}, "reference": "broke-co",
			"returnUrl": "https://shop.example.com/return", "shopperReference": "broke-shopper",
			"paymentMethod": map[string]any{"type": "scheme", "storedPaymentMethodId": s.token}})
		require.Equal(t, 200, co.Status, "%s", co.Body)
		assert.Equal(t, "Refused", co.Map(t)["resultCode"])
		assert.Equal(t, "12", co.Map(t)["refusalReasonCode"])
	})
}

// TestRecurringByCustomer: customer_id charges its default card token, the
// one saved most recently among those not expired; saving a card again makes
// it the default again; with both ids the token must be the customer's.
func TestRecurringByCustomer(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		first := e.saveCard("default-shopper", "4111111111111111")
		e.Clock.Set(time.Now().Add(time.Second))
		second := e.saveCard("default-shopper", "5555555555554444")
		require.Equal(t, first.customer, second.customer)
		charge := func(ref string) map[string]any {
			b := recurring("", ref)
			delete(b, "card_token_id")
			b["customer_id"] = first.customer
			r := e.post("/v1/payments/recurring", b)
			require.Equal(t, 201, r.Status, "%s", r.Body)
			return r.Map(t)
		}
		assert.Equal(t, second.token, charge("default-1")["card_token_id"], "the card saved last")
		e.Clock.Advance(time.Second)
		e.saveCard("default-shopper", "4111111111111111")
		assert.Equal(t, first.token, charge("default-2")["card_token_id"], "saved again: the default again")

		both := recurring(second.token, "default-3")
		both["customer_id"] = first.customer
		r := e.post("/v1/payments/recurring", both)
		require.Equal(t, 201, r.Status, "%s", r.Body)
		assert.Equal(t, second.token, r.Map(t)["card_token_id"])

		other := e.saveCard("other-shopper", "4111111111111111")
		both = recurring(other.token, "default-4")
		both["customer_id"] = first.customer
		assert.Equal(t, 404, e.post("/v1/payments/recurring", both).Status, "another customer's token")

		// Every card expired: no default.
		e.Clock.Set(time.Date(2030, 4, 1, 0, 0, 0, 0, time.UTC))
		byCustomer := recurring("", "default-5")
		delete(byCustomer, "card_token_id")
		byCustomer["customer_id"] = first.customer
		r = e.post("/v1/payments/recurring", byCustomer)
		require.Equal(t, 400, r.Status, "%s", r.Body)
		code, _ := errOf(t, r)
		assert.Equal(t, "no_card_token", code)
		r = e.post("/v1/payments/recurring", recurring(first.token, "default-6"))
		require.Equal(t, 400, r.Status, "%s", r.Body)
		code, param := errOf(t, r)
		assert.Equal(t, "expired_card", code)
		assert.Equal(t, "card_token_id", param)
	})
}

// TestRecurringIdempotency: a recurring payment retried with its key is one
// payment, and so are 20 concurrent copies with one key; another body with
// the key is a 422; no key is a 400.
func TestRecurringIdempotency(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		s := e.saveCard("idem-shopper", "4111111111111111")
		body := recurring(s.token, "idem-1")
		key := e.key()
		first := e.Do("POST", "/v1/payments/recurring", body, "Idempotency-Key", key)
		require.Equal(t, 201, first.Status, "%s", first.Body)
		again := e.Do("POST", "/v1/payments/recurring", body, "Idempotency-Key", key)
		assert.Equal(t, 201, again.Status)
		assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
		assert.JSONEq(t, string(first.Body), string(again.Body))
		assert.Len(t, e.list("/v1/transactions/by-order-reference/idem-1"), 1)
		body["amount"] = map[string]any{"value": 2600, "currency": "EUR"}
		assert.Equal(t, 422, e.Do("POST", "/v1/payments/recurring", body, "Idempotency-Key", key).Status)
		assert.Equal(t, 400, e.Do("POST", "/v1/payments/recurring", recurring(s.token, "idem-nokey")).Status)

		const n = 20
		key = e.key()
		body = recurring(s.token, "idem-20")
		var wg sync.WaitGroup
		answers := make([]string, n)
		for i := range n {
			wg.Go(func() {
				r := e.Do("POST", "/v1/payments/recurring", body, "Idempotency-Key", key)
				if r.Status == 201 {
					answers[i] = r.Map(t)["id"].(string)
				} else {
					assert.Equal(t, 409, r.Status, "a copy in flight: %s", r.Body)
				}
			})
		}
		wg.Wait()
		txs := e.list("/v1/transactions/by-order-reference/idem-20")
		require.Len(t, txs, 1, "one payment")
		for _, a := range answers {
			if a != "" {
				assert.Equal(t, txs[0]["id"], a, "every answer is the one payment")
			}
		}
		assert.Equal(t, payments.Charged, payments.Status(txs[0]["status"].(string)))
	})
}

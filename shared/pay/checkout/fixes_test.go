package checkout_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/domain/vault"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// twice sends the same request two times and requires the same status and
// bytes; it returns the first answer.
func twice(t *testing.T, send func(headers ...string) *apitest.Resp, headers ...[]string) *apitest.Resp {
	t.Helper()
	var h1, h2 []string
	if len(headers) == 2 {
		h1, h2 = headers[0], headers[1]
	}
	a, b := send(h1...), send(h2...)
	require.Equal(t, 200, a.Status, "%s", a.Body)
	require.Equal(t, a.Status, b.Status, "%s", b.Body)
	require.Equal(t, string(a.Body), string(b.Body), "the same details answer the same")
	return a
}

// TestDetailsTwiceAnswersTheSame: every stage of /payments/details sent
// twice, without a key, with a key only the second time, and on the drop-in's
// route, answers the same status and body.
func TestDetailsTwiceAnswersTheSame(t *testing.T) {
	backends(t, func(t *testing.T, e *apitest.Env) {
		details := func(body map[string]any) func(...string) *apitest.Resp {
			return func(h ...string) *apitest.Resp { return e.Do("POST", "/v2/payments/details", body, h...) }
		}
		// Challenge card: fingerprint answered twice, then the challenge.
		p := pay(t, e, "/v2/payments", paymentBody("twice-1", card("5454545454545454")), "PaymentResponse")
		fp := map[string]any{"details": map[string]any{"threeDSResult": threeDS("", p.Action.AuthorisationToken)}}
		r := twice(t, details(fp))
		var ch payResp
		r.JSON(t, &ch)
		require.Equal(t, "ChallengeShopper", ch.ResultCode)
		adyenValid(t, "PaymentDetailsResponse", r.Body)
		challenge := map[string]any{"details": map[string]any{"threeDSResult": threeDS("Y", ch.Action.AuthorisationToken)}}
		r = twice(t, details(challenge), nil, []string{"Idempotency-Key", "second-only"})
		assert.Equal(t, "Authorised", r.Map(t)["resultCode"])
		assert.Equal(t, 1, countAuthorised(storedPayments(t, e, e.Account.ID)))

		// Refused challenge: the refusal and its code, twice.
		p = pay(t, e, "/v2/payments", paymentBody("twice-2", card("5454545454545454")), "PaymentResponse")
		r = twice(t, details(map[string]any{"details": map[string]any{"threeDSResult": threeDS("", p.Action.AuthorisationToken)}}))
		r.JSON(t, &ch)
		r = twice(t, details(map[string]any{"details": map[string]any{"threeDSResult": threeDS("N", ch.Action.AuthorisationToken)}}))
		m := r.Map(t)
		assert.Equal(t, "Refused", m["resultCode"])
		assert.Equal(t, "3D Not Authenticated", m["refusalReason"])
		assert.Equal(t, "11", m["refusalReasonCode"])

		// Redirect, twice, the first time with a key.
		p = pay(t, e, "/v2/payments", paymentBody("twice-3", card("4212345678901237")), "PaymentResponse")
		rr := p.Action.URL[strings.Index(p.Action.URL, "redirectResult=")+len("redirectResult="):]
		r = twice(t, details(map[string]any{"details": map[string]any{"redirectResult": rr}}), []string{"Idempotency-Key", "first-only"}, nil)
		assert.Equal(t, "Authorised", r.Map(t)["resultCode"])

		// The drop-in's route, on a session.
		ck := e.NewClientKey(origin)
		s := createSession(t, e, map[string]any{"reference": "twice-session"})
		base := "/v2/client/sessions/" + s.ID
		r = clientDo(e, ck, base+"/payments", map[string]any{"sessionData": s.SessionData, "paymentMethod": card("5454545454545454")})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		r.JSON(t, &p)
		client := func(body map[string]any) func(...string) *apitest.Resp {
			body["sessionData"] = s.SessionData
			return func(h ...string) *apitest.Resp { return clientDo(e, ck, base+"/payments/details", body, h...) }
		}
		r = twice(t, client(map[string]any{"details": map[string]any{"threeDSResult": threeDS("", p.Action.AuthorisationToken)}}))
		r.JSON(t, &ch)
		require.Equal(t, "ChallengeShopper", ch.ResultCode)
		r = twice(t, client(map[string]any{"details": map[string]any{"threeDSResult": threeDS("Y", ch.Action.AuthorisationToken)}}))
		assert.Equal(t, "Authorised", r.Map(t)["resultCode"])
		assert.Equal(t, "completed", sessionResult(t, e, s.ID)["status"])
	})
}

// countEvents counts the account's event records of type typ.
func countEvents(t *testing.T, e *apitest.Env, accountID, typ string) int {
	t.Helper()
	page, err := e.Deps.Store.Query(context.Background(), store.Query{Table: store.TableEvents, PK: "evt#" + accountID, Limit: 1000})
	require.NoError(t, err)
	n := 0
	for _, it := range page.Items {
		var ev struct {
			Type string `json:"type"`
		}
		require.NoError(t, json.Unmarshal(it.Data, &ev))
		if ev.Type == typ {
			n++
		}
	}
	return n
}

// TestConcurrentDetailsAnswerTheSame: many copies of one details request at
// once, on the advanced flow and on a session: every one answers the same
// bytes, and the payment is authorised (and announced) once.
func TestConcurrentDetailsAnswerTheSame(t *testing.T) {
	backends(t, func(t *testing.T, e *apitest.Env) {
		const n = 8
		race := func(send func() *apitest.Resp) {
			t.Helper()
			out := make([]*apitest.Resp, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() { out[i] = send() })
			}
			wg.Wait()
			for _, r := range out {
				require.Equal(t, 200, r.Status, "%s", r.Body)
				assert.Equal(t, string(out[0].Body), string(r.Body))
			}
			assert.Equal(t, "Authorised", out[0].Map(t)["resultCode"])
		}
		p := pay(t, e, "/v2/payments", paymentBody("race-1", card("4917610000000000")), "PaymentResponse")
		body := map[string]any{"details": map[string]any{"threeDSResult": threeDS("", p.Action.AuthorisationToken)}}
		race(func() *apitest.Resp { return e.Do("POST", "/v2/payments/details", body) })

		ck := e.NewClientKey(origin)
		s := createSession(t, e, map[string]any{"reference": "race-session"})
		base := "/v2/client/sessions/" + s.ID
		r := clientDo(e, ck, base+"/payments", map[string]any{"sessionData": s.SessionData, "paymentMethod": card("4917610000000000")})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		r.JSON(t, &p)
		cbody := map[string]any{"sessionData": s.SessionData, "details": map[string]any{"threeDSResult": threeDS("", p.Action.AuthorisationToken)}}
		race(func() *apitest.Resp { return clientDo(e, ck, base+"/payments/details", cbody) })

		assert.Equal(t, 2, countAuthorised(storedPayments(t, e, e.Account.ID)))
		assert.Equal(t, 2, countEvents(t, e, e.Account.ID, "payment.authorised"), "each payment is authorised once")
		assert.Equal(t, 1, countEvents(t, e, e.Account.ID, checkout.EventSessionCompleted), "the session is completed once")
		assert.Equal(t, "completed", sessionResult(t, e, s.ID)["status"])
	})
}

// storedItems lists the card token records of a shopper, as stored.
func storedItems(t *testing.T, e *apitest.Env, shopper string) []store.Item {
	t.Helper()
	page, err := e.Deps.Store.Query(context.Background(), store.Query{Table: store.TablePayments, PK: vault.TokensPK(e.Account.ID), Limit: 100})
	require.NoError(t, err)
	var out []store.Item
	for _, it := range page.Items {
		tok, err := vault.DecodeToken(it)
		require.NoError(t, err)
		if tok.ShopperReference == shopper {
			out = append(out, it)
		}
	}
	return out
}

func storedMethodIDs(t *testing.T, e *apitest.Env, shopper string) []string {
	t.Helper()
	r := e.Do("POST", "/v2/paymentMethods", map[string]any{"shopperReference": shopper})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	adyenValid(t, "PaymentMethodsResponse", r.Body)
	var m struct {
		Stored []struct {
			ID string `json:"id"`
		} `json:"storedPaymentMethods"`
	}
	r.JSON(t, &m)
	var out []string
	for _, s := range m.Stored {
		out = append(out, s.ID)
	}
	return out
}

// TestStoringACardTwiceKeepsOne: the same card stored again (its expiry
// written another way, too), or by many payments at once, is one stored
// method; its key holds a fingerprint, never the card number.
func TestStoringACardTwiceKeepsOne(t *testing.T) {
	backends(t, func(t *testing.T, e *apitest.Env) {
		storing := func(ref, shopper string, pm map[string]any) map[string]any {
			b := paymentBody(ref, pm)
			b["shopperReference"], b["storePaymentMethod"] = shopper, true
			return b
		}
		visa := card("4111111111111111")
		pay(t, e, "/v2/payments", storing("store-1", "shopper-a", visa), "PaymentResponse")
		sameOtherForm := map[string]any{"type": "scheme", "number": "4111 1111 1111 1111", "expiryMonth": "3", "expiryYear": "30", "cvc": "737"}
		pay(t, e, "/v2/payments", storing("store-2", "shopper-a", sameOtherForm), "PaymentResponse")
		ids := storedMethodIDs(t, e, "shopper-a")
		require.Len(t, ids, 1, "one card stored twice is one stored method")
		assert.Len(t, storedItems(t, e, "shopper-a"), 1)

		pay(t, e, "/v2/payments", storing("store-3", "shopper-a", card("5555555555554444")), "PaymentResponse")
		assert.Len(t, storedMethodIDs(t, e, "shopper-a"), 2, "another card is another method")
		other := storedMethodIDs(t, e, "shopper-b")
		assert.Empty(t, other)
		pay(t, e, "/v2/payments", storing("store-4", "shopper-b", visa), "PaymentResponse")
		require.Len(t, storedMethodIDs(t, e, "shopper-b"), 1)
		assert.NotEqual(t, ids[0], storedMethodIDs(t, e, "shopper-b")[0], "ids are per shopper")

		// Many payments storing one new card at once.
		const n = 8
		var wg sync.WaitGroup
		statuses := make([]int, n)
		for i := range n {
			wg.Go(func() {
				statuses[i] = e.Do("POST", "/v2/payments", storing("store-race", "shopper-c", card("5555555555554444"))).Status
			})
		}
		wg.Wait()
		for _, st := range statuses {
			assert.Equal(t, 200, st)
		}
		assert.Len(t, storedMethodIDs(t, e, "shopper-c"), 1)
		items := storedItems(t, e, "shopper-c")
		assert.Len(t, items, 1, "one item, however many payments stored it")

		for _, it := range append(items, storedItems(t, e, "shopper-a")...) {
			for _, digits := range []string{"4111111111111111", "5555555555554444", "370000000000002", "1111", "4444"} {
				assert.NotContains(t, it.Key.SK, digits, "the key holds no card number")
			}
			for _, number := range []string{"4111111111111111", "5555555555554444", "4111 1111 1111 1111", "cvc", "number"} {
				assert.NotContains(t, string(it.Data), number, "the record holds no card number, nor the CVC")
			}
		}
		// The stored method pays.
		again := paymentBody("store-5", map[string]any{"type": "scheme", "storedPaymentMethodId": ids[0]})
		again["shopperReference"] = "shopper-a"
		assert.Equal(t, "Authorised", pay(t, e, "/v2/payments", again, "PaymentResponse").ResultCode)
	})
}

// decodedParts are the base64 decodings of every part of a token and of the
// token whole.
func decodedParts(tok string) []string {
	out := []string{tok}
	for _, part := range append(strings.Split(tok, "."), tok) {
		for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.StdEncoding} {
			if b, err := enc.DecodeString(part); err == nil {
				out = append(out, string(b))
			}
		}
	}
	return out
}

// TestTokensRevealNoIds: sessionData, paymentData, the authorisationToken,
// the redirectResult and the 3-D Secure action token show no account,
// payment or session id when decoded; a tampered token is a 400.
func TestTokensRevealNoIds(t *testing.T) {
	e := newEnv(t)
	ck := e.NewClientKey(origin)
	s := createSession(t, e, map[string]any{"reference": "opaque-1"})
	base := "/v2/client/sessions/" + s.ID
	r := clientDo(e, ck, base+"/payments", map[string]any{"sessionData": s.SessionData, "paymentMethod": card("5454545454545454")})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	var p payResp
	r.JSON(t, &p)
	var action struct {
		Action struct {
			Token string `json:"token"`
		} `json:"action"`
	}
	r.JSON(t, &action)
	redirect := pay(t, e, "/v2/payments", paymentBody("opaque-2", card("4212345678901237")), "PaymentResponse")
	rr := redirect.Action.URL[strings.Index(redirect.Action.URL, "redirectResult=")+len("redirectResult="):]

	secrets := []string{e.Account.ID, p.PSPReference, redirect.PSPReference, s.ID}
	for name, tok := range map[string]string{"sessionData": s.SessionData, "paymentData": p.Action.PaymentData,
		"authorisationToken": p.Action.AuthorisationToken, "redirectResult": rr, "action.token": action.Action.Token} {
		require.NotEmpty(t, tok, name)
		for _, d := range decodedParts(tok) {
			for _, id := range secrets {
				assert.NotContains(t, d, id, "%s shows an id", name)
			}
		}
	}

	flip := func(tok string) string {
		b := []byte(tok)
		i := len(b) - 5
		b[i] ^= 1
		if b[i] == '.' || b[i] == '/' {
			b[i] ^= 3
		}
		return string(b)
	}
	r = clientDo(e, ck, base+"/setup", map[string]any{"sessionData": flip(s.SessionData)})
	assert.Equal(t, 400, r.Status, "%s", r.Body)
	assert.Equal(t, "session_data_invalid", r.Err(t)["code"])
	r = e.Do("POST", "/v2/payments/details", map[string]any{"paymentData": flip(p.Action.PaymentData),
		"details": map[string]any{"threeDSResult": threeDS("", "")}})
	assert.Equal(t, 400, r.Status, "%s", r.Body)
	assert.Equal(t, "payment_data_invalid", r.Err(t)["code"])
	// A session's token is not a payment's, and the other way round.
	r = e.Do("POST", "/v2/payments/details", map[string]any{"paymentData": s.SessionData, "details": map[string]any{"threeDSResult": threeDS("", "")}})
	assert.Equal(t, 400, r.Status)
	r = clientDo(e, ck, base+"/setup", map[string]any{"sessionData": p.Action.PaymentData})
	assert.Equal(t, 400, r.Status)
	assert.Equal(t, 0, countAuthorised(storedPayments(t, e, e.Account.ID)))
}

// TestWaitingPaymentFromBeforeStoredTokens: a payment that entered its stage
// before stages kept their paymentData (a record written by the previous
// release) still answers with a usable action.
func TestWaitingPaymentFromBeforeStoredTokens(t *testing.T) {
	e := newEnv(t)
	p := pay(t, e, "/v2/payments", paymentBody("legacy-1", card("5454545454545454")), "PaymentResponse")
	fp := map[string]any{"details": map[string]any{"threeDSResult": threeDS("", p.Action.AuthorisationToken)}}
	r := e.Do("POST", "/v2/payments/details", fp)
	require.Equal(t, 200, r.Status, "%s", r.Body)

	ctx := context.Background()
	key := payments.Key(e.Account.ID, p.PSPReference)
	it, err := e.Deps.Store.Get(ctx, key)
	require.NoError(t, err)
	var rec map[string]any
	require.NoError(t, json.Unmarshal(it.Data, &rec))
	delete(rec["internal"].(map[string]any), "paymentData")
	it.Data, _ = json.Marshal(rec)
	require.NoError(t, e.Deps.Store.Write(ctx, store.Put(it, store.Always)))

	r = e.Do("POST", "/v2/payments/details", fp)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	var ch payResp
	r.JSON(t, &ch)
	require.Equal(t, "ChallengeShopper", ch.ResultCode)
	require.NotEmpty(t, ch.Action.AuthorisationToken)
	d := pay(t, e, "/v2/payments/details", map[string]any{"details": map[string]any{"threeDSResult": threeDS("Y", ch.Action.AuthorisationToken)}}, "PaymentDetailsResponse")
	assert.Equal(t, "Authorised", d.ResultCode)
}

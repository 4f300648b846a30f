package checkout_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/auth"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

func clientDo(e *apitest.Env, ck, path string, body any, headers ...string) *apitest.Resp {
	return e.DoKey(ck, "POST", path, body, append([]string{"Origin", origin}, headers...)...)
}

func sessionResult(t *testing.T, e *apitest.Env, id string) map[string]any {
	t.Helper()
	r := e.Do("GET", "/v2/sessions/"+id, nil)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	adyenValid(t, "SessionResultResponse", r.Body)
	return r.Map(t)
}

func TestSessionFlowEndToEnd(t *testing.T) {
	e := newEnv(t)
	ck := e.NewClientKey(origin)
	s := createSession(t, e, map[string]any{"channel": "Web"})
	base := "/v2/client/sessions/" + s.ID

	r := clientDo(e, ck, base+"/setup", map[string]any{"sessionData": s.SessionData})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	assert.Contains(t, string(r.Body), `"googlepay"`)
	r = clientDo(e, ck, base+"/paymentMethods", map[string]any{"sessionData": s.SessionData})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	adyenValid(t, "PaymentMethodsResponse", r.Body)

	// A 3DS2 challenge card: fingerprint, challenge, authorised.
	r = clientDo(e, ck, base+"/payments", map[string]any{"sessionData": s.SessionData, "paymentMethod": card("5454545454545454"), "browserInfo": map[string]any{"userAgent": "x"}})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	adyenValid(t, "PaymentResponse", r.Body)
	var p payResp
	r.JSON(t, &p)
	require.Equal(t, "IdentifyShopper", p.ResultCode)
	assert.Equal(t, "paymentPending", sessionResult(t, e, s.ID)["status"])

	r = clientDo(e, ck, base+"/payments/details", map[string]any{"sessionData": s.SessionData, "details": map[string]any{"threeDSResult": threeDS("", p.Action.AuthorisationToken)}})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	adyenValid(t, "PaymentDetailsResponse", r.Body)
	r.JSON(t, &p)
	require.Equal(t, "ChallengeShopper", p.ResultCode)
	r = clientDo(e, ck, base+"/payments/details", map[string]any{"sessionData": s.SessionData, "details": map[string]any{"threeDSResult": threeDS("Y", p.Action.AuthorisationToken)}})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	r.JSON(t, &p)
	assert.Equal(t, "Authorised", p.ResultCode)

	res := sessionResult(t, e, s.ID)
	assert.Equal(t, "completed", res["status"])
	require.Len(t, res["payments"], 1)
	assert.Equal(t, "Authorised", res["payments"].([]any)[0].(map[string]any)["resultCode"])

	// A completed session takes no more payments.
	r = clientDo(e, ck, base+"/payments", map[string]any{"sessionData": s.SessionData, "paymentMethod": card("4111111111111111")})
	assert.Equal(t, 409, r.Status)
	assert.Equal(t, "session_completed", r.Err(t)["code"])
	assert.Equal(t, 1, countAuthorised(storedPayments(t, e, e.Account.ID)))
}

func TestSessionRefusedAfterAttemptLimit(t *testing.T) {
	e := newEnv(t)
	ck := e.NewClientKey(origin)
	s := createSession(t, e, nil)
	declined := card("4111111111111111")
	declined["holderName"] = "DECLINED"
	for i := 0; i < 3; i++ {
		r := clientDo(e, ck, "/v2/client/sessions/"+s.ID+"/payments", map[string]any{"sessionData": s.SessionData, "paymentMethod": declined})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		assert.Equal(t, "Refused", r.Map(t)["resultCode"])
	}
	assert.Equal(t, "refused", sessionResult(t, e, s.ID)["status"])
	r := clientDo(e, ck, "/v2/client/sessions/"+s.ID+"/payments", map[string]any{"sessionData": s.SessionData, "paymentMethod": card("4111111111111111")})
	assert.Equal(t, 409, r.Status)
}

func TestSessionAbuse(t *testing.T) {
	e := newEnv(t)
	ck := e.NewClientKey(origin)
	s := createSession(t, e, nil)
	other := createSession(t, e, map[string]any{"reference": "order-43"})
	path := "/v2/client/sessions/" + s.ID + "/payments"
	body := func(sd string, extra ...any) map[string]any {
		b := map[string]any{"sessionData": sd, "paymentMethod": card("4111111111111111")}
		for i := 0; i+1 < len(extra); i += 2 {
			b[extra[i].(string)] = extra[i+1]
		}
		return b
	}
	tampered := []byte(s.SessionData)
	tampered[len(tampered)/2] ^= 1
	cases := []struct {
		name   string
		key    string
		path   string
		body   any
		hdr    []string
		status int
		code   string
	}{
		{"tampered sessionData", ck, path, body(string(tampered)), nil, 400, ""},
		{"sessionData of another session", ck, path, body(other.SessionData), nil, 400, "session_data_mismatch"},
		{"sessionData missing", ck, path, body(""), nil, 400, "parameter_missing"},
		{"amount differs from the session's", ck, path, body(s.SessionData, "amount", map[string]any{"value": 1, "currency": "EUR"}), nil, 400, "amount_mismatch"},
		{"client key from a disallowed origin", ck, path, body(s.SessionData), []string{"Origin", "https://evil.example.net"}, 403, "origin_not_allowed"},
		{"server key on a client endpoint", e.Key, path, body(s.SessionData), nil, 401, "wrong_key_kind"},
		{"client key on a server endpoint", ck, "/v2/payments", paymentBody("ord-1", card("4111111111111111")), nil, 401, "wrong_key_kind"},
		{"client key on session creation", ck, "/v2/sessions", sessionBody(e, nil), nil, 401, "wrong_key_kind"},
		{"Luhn failure", ck, path, map[string]any{"sessionData": s.SessionData, "paymentMethod": card("4111111111111112")}, nil, 400, "invalid_number"},
		{"sessionData twice", ck, path, `{"sessionData":"` + other.SessionData + `","sessionData":"` + s.SessionData + `","paymentMethod":{"type":"scheme","encryptedCardNumber":"test_4111111111111111","encryptedExpiryMonth":"test_03","encryptedExpiryYear":"test_2030","encryptedSecurityCode":"test_737"}}`, nil, 400, "parameter_duplicate"},
		{"sessionData in another case", ck, path, `{"SessionData":"` + s.SessionData + `","paymentMethod":{"type":"scheme"}}`, nil, 400, "parameter_unknown"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.DoKey(c.key, "POST", c.path, c.body, append([]string{"Origin", origin}, c.hdr...)...)
			require.Equal(t, c.status, r.Status, "%s", r.Body)
			if c.code != "" {
				assert.Equal(t, c.code, r.Err(t)["code"], "%s", r.Body)
			}
		})
	}

	// Another merchant's client key cannot see this session at all.
	acct, _ := e.NewAccount("test")
	_, foreignCK, err := e.Deps.Keys.Create(context.Background(), acct.ID, auth.NewKey{Kind: auth.Client, AllowedOrigins: []string{origin}})
	require.NoError(t, err)
	apitest.RememberSecret(foreignCK)
	r := clientDo(e, foreignCK, path, body(s.SessionData))
	assert.Equal(t, 404, r.Status)

	// Expired session: no payment.
	e.Clock.Advance(61 * time.Minute)
	r = clientDo(e, ck, path, body(s.SessionData))
	assert.Equal(t, 409, r.Status)
	assert.Equal(t, "session_expired", r.Err(t)["code"])

	assert.Equal(t, 0, countAuthorised(storedPayments(t, e, e.Account.ID)), "no abuse authorised a payment")
}

func TestConcurrentPaymentsOnOneSession(t *testing.T) {
	e := newEnv(t)
	ck := e.NewClientKey(origin)
	s := createSession(t, e, nil)
	const n = 8
	var wg sync.WaitGroup
	statuses := make([]int, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := clientDo(e, ck, "/v2/client/sessions/"+s.ID+"/payments", map[string]any{"sessionData": s.SessionData, "paymentMethod": card("4111111111111111")})
			statuses[i] = r.Status
		}(i)
	}
	wg.Wait()
	ok := 0
	for _, st := range statuses {
		if st == 200 {
			ok++
		} else {
			assert.Equal(t, 409, st)
		}
	}
	assert.GreaterOrEqual(t, ok, 1)
	assert.Equal(t, 1, countAuthorised(storedPayments(t, e, e.Account.ID)), "at most one payment is authorised")
	assert.Equal(t, "completed", sessionResult(t, e, s.ID)["status"])
}

// TestSessionExpiresDuringChallenge: a session that expires while its
// payment waits for the 3-D Secure challenge never shows the payment Pending
// again: the session result drops it at once, the details answer (on either
// route, sent any number of times) is the same Refused "3D Not
// Authenticated", and the payment record is rejected with that reason.
func TestSessionExpiresDuringChallenge(t *testing.T) {
	backends(t, func(t *testing.T, e *apitest.Env) {
		e.Clock.Set(time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC))
		ck := e.NewClientKey(origin)
		s := createSession(t, e, map[string]any{"expiresAt": "2024-05-01T10:10:00Z"})
		base := "/v2/client/sessions/" + s.ID
		r := clientDo(e, ck, base+"/payments", map[string]any{"sessionData": s.SessionData, "paymentMethod": card("5454545454545454")})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		var p payResp
		r.JSON(t, &p)
		require.Equal(t, "IdentifyShopper", p.ResultCode)
		r = clientDo(e, ck, base+"/payments/details", map[string]any{"sessionData": s.SessionData, "details": map[string]any{"threeDSResult": threeDS("", p.Action.AuthorisationToken)}})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		var ch payResp
		r.JSON(t, &ch)
		require.Equal(t, "ChallengeShopper", ch.ResultCode)
		res := sessionResult(t, e, s.ID)
		assert.Equal(t, "paymentPending", res["status"])
		assert.Equal(t, "Pending", res["payments"].([]any)[0].(map[string]any)["resultCode"])

		e.Clock.Advance(11 * time.Minute) // the shopper took too long
		res = sessionResult(t, e, s.ID)
		assert.Equal(t, "expired", res["status"])
		assert.Empty(t, res["payments"], "no Pending payment on an expired session, even before any details call")

		body := map[string]any{"sessionData": s.SessionData, "details": map[string]any{"threeDSResult": threeDS("Y", ch.Action.AuthorisationToken)}}
		first := clientDo(e, ck, base+"/payments/details", body)
		require.Equal(t, 200, first.Status, "%s", first.Body)
		adyenValid(t, "PaymentDetailsResponse", first.Body)
		m := first.Map(t)
		assert.Equal(t, "Refused", m["resultCode"])
		assert.Equal(t, "3D Not Authenticated", m["refusalReason"])
		assert.Equal(t, "11", m["refusalReasonCode"])
		assert.Equal(t, p.PSPReference, m["pspReference"])
		again := clientDo(e, ck, base+"/payments/details", body)
		assert.Equal(t, first.Status, again.Status)
		assert.Equal(t, string(first.Body), string(again.Body), "the same details answer the same")
		// The server route and the fingerprint's older token answer the same too.
		srv := e.Do("POST", "/v2/payments/details", map[string]any{"details": map[string]any{"threeDSResult": threeDS("", p.Action.AuthorisationToken)}})
		assert.Equal(t, 200, srv.Status)
		assert.Equal(t, string(first.Body), string(srv.Body))

		ps := storedPayments(t, e, e.Account.ID)
		require.Len(t, ps, 1)
		assert.Equal(t, payments.Rejected, ps[0].Status, "the waiting payment ends refused")
		assert.Equal(t, "3D Not Authenticated", ps[0].RefusalReason)
		assert.Contains(t, ps[0].History[len(ps[0].History)-1].Reason, "session expired")
		assert.Equal(t, 0, countAuthorised(ps))
		res = sessionResult(t, e, s.ID)
		assert.Equal(t, "expired", res["status"])
		assert.Empty(t, res["payments"])
		stored, err := e.Deps.Store.Get(context.Background(), store.Key{Table: store.TableSessions, PK: "cs#" + s.ID, SK: "session"})
		require.NoError(t, err)
		assert.NotContains(t, string(stored.Data), "Pending", "the stored session no longer lists it as pending")
		assert.NotContains(t, string(stored.Data), "pending_payment_id")
	})
}

// TestSessionExpiresBeforeFingerprint: the same on the frictionless card,
// through the server route first.
func TestSessionExpiresBeforeFingerprint(t *testing.T) {
	e := newEnv(t)
	e.Clock.Set(time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC))
	ck := e.NewClientKey(origin)
	s := createSession(t, e, map[string]any{"expiresAt": "2024-05-01T10:10:00Z"})
	r := clientDo(e, ck, "/v2/client/sessions/"+s.ID+"/payments", map[string]any{"sessionData": s.SessionData, "paymentMethod": card("4917610000000000")})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	var p payResp
	r.JSON(t, &p)
	e.Clock.Advance(11 * time.Minute)
	body := map[string]any{"details": map[string]any{"threeDSResult": threeDS("", p.Action.AuthorisationToken)}}
	first := e.Do("POST", "/v2/payments/details", body)
	require.Equal(t, 200, first.Status, "%s", first.Body)
	assert.Equal(t, "Refused", first.Map(t)["resultCode"])
	again := e.Do("POST", "/v2/payments/details", body, "Idempotency-Key", "after-expiry")
	assert.Equal(t, string(first.Body), string(again.Body))
	assert.Equal(t, 0, countAuthorised(storedPayments(t, e, e.Account.ID)))
	assert.Equal(t, 1, countStatus(storedPayments(t, e, e.Account.ID), payments.Rejected))
}

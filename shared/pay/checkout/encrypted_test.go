package checkout_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/cse"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// setupKey is the card key a session's setup offers the Drop-in.
func setupKey(t *testing.T, e *apitest.Env, ck string, s sess) checkout.EncryptionKey {
	t.Helper()
	r := clientDo(e, ck, "/v2/client/sessions/"+s.ID+"/setup", map[string]any{"sessionData": s.SessionData})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	var setup struct {
		Key *checkout.EncryptionKey `json:"clientEncryptionKey"`
	}
	r.JSON(t, &setup)
	require.NotNil(t, setup.Key, "%s", r.Body)
	return *setup.Key
}

// sealer encrypts card fields as the Drop-in does, to the key the setup
// offered (its JWK), with the keyring's current key's public half.
type sealer struct {
	t   *testing.T
	key cse.Key
	gen time.Time
}

func newSealer(t *testing.T, e *apitest.Env, offered checkout.EncryptionKey) sealer {
	t.Helper()
	keys, err := checkout.CardKeyring(e.Deps)
	require.NoError(t, err)
	k, ok, err := keys.Current(context.Background())
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, k.KID, offered.KID, "the setup offers the current key")
	jwk, err := k.JWKMap()
	require.NoError(t, err)
	assert.Equal(t, jwk, offered.JWK)
	assert.Equal(t, []string{"RSA-OAEP-256", "A256CBC-HS512", "1"}, []string{offered.Alg, offered.Enc, offered.Version})
	return sealer{t: t, key: k, gen: time.Now()}
}

// field is one encrypted field's JWE: {name: value, generationtime}.
func (s sealer) field(name, value string, extra ...string) string {
	s.t.Helper()
	payload := map[string]string{name: value, "generationtime": cse.FormatGenerationTime(s.gen)}
	for i := 0; i+1 < len(extra); i += 2 {
		payload[extra[i]] = extra[i+1]
	}
	b, err := json.Marshal(payload)
	require.NoError(s.t, err)
	jwe, err := cse.Encrypt(s.key.KID, s.key.PublicKey(), b)
	require.NoError(s.t, err)
	return jwe
}

func (s sealer) card(number, cvc string) map[string]any {
	return map[string]any{"type": "scheme",
		"encryptedCardNumber":   s.field("number", number, "holderName", "Aigerim Sandbox"),
		"encryptedExpiryMonth":  s.field("expiryMonth", "03"),
		"encryptedExpiryYear":   s.field("expiryYear", "2030"),
		"encryptedSecurityCode": s.field("cvc", cvc)}
}

// TestEncryptedCardFieldsPay: the Drop-in's encrypted fields (each a JWE to
// the key its setup offered) pay a session, authorised; the holder's name
// rides in the number's payload; the advanced flow takes them too. Every
// field that does not open is one 400 encrypted_card_invalid naming it,
// and records nothing.
func TestEncryptedCardFieldsPay(t *testing.T) {
	e := newEnv(t)
	ck := e.NewClientKey(origin)
	s := createSession(t, e, nil)
	enc := newSealer(t, e, setupKey(t, e, ck, s))

	r := clientDo(e, ck, "/v2/client/sessions/"+s.ID+"/payments", map[string]any{"sessionData": s.SessionData, "paymentMethod": enc.card("4111111111111111", "737")})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	adyenValid(t, "PaymentResponse", r.Body)
	var p payResp
	r.JSON(t, &p)
	assert.Equal(t, "Authorised", p.ResultCode)
	assert.Equal(t, "completed", sessionResult(t, e, s.ID)["status"])
	ps := storedPayments(t, e, e.Account.ID)
	require.Len(t, ps, 1)
	assert.Equal(t, "1111", ps[0].Last4)

	// The advanced flow: a merchant's server forwards what the page encrypted.
	p = pay(t, e, "/v2/payments", paymentBody("ord-enc", enc.card("5555555555554444", "737")), "PaymentResponse")
	assert.Equal(t, "Authorised", p.ResultCode)

	// A refused card is the processor's answer, not a decryption error.
	p = pay(t, e, "/v2/payments", paymentBody("ord-enc-2", enc.card("4000000000000010", "737")), "PaymentResponse")
	assert.Equal(t, "Refused", p.ResultCode)

	other := newSealer(t, e, setupKey(t, e, ck, createSession(t, e, nil)))
	other.gen = time.Now().Add(-25 * time.Hour)
	good := enc.card("4111111111111111", "737")
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range good {
			m[kk] = vv
		}
		m[k] = v
		return m
	}
	tampered := good["encryptedSecurityCode"].(string)
	tampered = tampered[:len(tampered)-4] + "AAAA"
	cases := []struct {
		name  string
		pm    map[string]any
		param string
		code  string
	}{
		{"tampered CVC", with("encryptedSecurityCode", tampered), "paymentMethod.encryptedSecurityCode", "encrypted_card_invalid"},
		{"another library's blob", with("encryptedCardNumber", "adyenjs_0_1_25$abc"), "paymentMethod.encryptedCardNumber", "encrypted_card_invalid"},
		{"generated 25 hours ago", with("encryptedExpiryMonth", other.field("expiryMonth", "03")), "paymentMethod.encryptedExpiryMonth", "encrypted_card_invalid"},
		{"the CVC's blob as the number", with("encryptedCardNumber", enc.field("cvc", "737")), "paymentMethod.encryptedCardNumber", "encrypted_card_invalid"},
		{"clear and encrypted number", with("number", "4111111111111111"), "paymentMethod.encryptedCardNumber", "parameter_invalid"},
		{"expiry year missing", with("encryptedExpiryYear", nil), "paymentMethod.encryptedExpiryYear", "parameter_missing"},
	}
	before := len(storedPayments(t, e, e.Account.ID))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.pm["encryptedExpiryYear"] == nil {
				delete(c.pm, "encryptedExpiryYear")
			}
			s := createSession(t, e, nil)
			r := clientDo(e, ck, "/v2/client/sessions/"+s.ID+"/payments", map[string]any{"sessionData": s.SessionData, "paymentMethod": c.pm})
			require.Equal(t, 400, r.Status, "%s", r.Body)
			assert.Equal(t, c.param, r.Err(t)["param"], "%s", r.Body)
			assert.Equal(t, c.code, r.Err(t)["code"], "%s", r.Body)
			// The CVC is not echoed (the message, not the random request id).
			assert.NotContains(t, r.Err(t)["message"], "737")
		})
	}
	assert.Len(t, storedPayments(t, e, e.Account.ID), before, "no bad request records a payment")
}

// TestLiveKeysTakeEncryptedFieldsOnly: a live key's card in clear or as
// test_ data is a 400 test_data_in_live_mode; encrypted fields pass that
// check and meet the live processor's absence (403 live_mode_unavailable).
func TestLiveKeysTakeEncryptedFieldsOnly(t *testing.T) {
	e := newEnv(t)
	ck := e.NewClientKey(origin)
	enc := newSealer(t, e, setupKey(t, e, ck, createSession(t, e, nil)))
	live, liveKey := e.NewAccount("live")
	clear := map[string]any{"type": "scheme", "number": "4111111111111111", "expiryMonth": "03", "expiryYear": "2030", "cvc": "737"}
	for name, pm := range map[string]map[string]any{"clear": clear, "test_": card("4111111111111111")} {
		r := e.DoKey(liveKey, "POST", "/v2/payments", paymentBody("ord-live", pm))
		require.Equal(t, 400, r.Status, "%s: %s", name, r.Body)
		assert.Equal(t, "test_data_in_live_mode", r.Err(t)["code"])
		assert.Contains(t, r.Err(t)["message"], "encryptedCardNumber")
	}
	r := e.DoKey(liveKey, "POST", "/v2/payments", paymentBody("ord-live", enc.card("4111111111111111", "737")))
	assert.Equal(t, 403, r.Status, "%s", r.Body)
	assert.Equal(t, "live_mode_unavailable", r.Err(t)["code"])
	assert.Empty(t, storedPayments(t, e, live.ID))
}

// TestEncryptedPaymentsRace: 20 copies of one encrypted payment on a
// session, at once: one is authorised and completes the session; the
// others are answered with a conflict or the one payment, never a second.
func TestEncryptedPaymentsRace(t *testing.T) {
	e := newEnv(t)
	ck := e.NewClientKey(origin)
	s := createSession(t, e, nil)
	enc := newSealer(t, e, setupKey(t, e, ck, s))
	body := map[string]any{"sessionData": s.SessionData, "paymentMethod": enc.card("4111111111111111", "737")}
	var wg sync.WaitGroup
	statuses := make([]int, 20)
	for i := range statuses {
		wg.Go(func() {
			statuses[i] = clientDo(e, ck, "/v2/client/sessions/"+s.ID+"/payments", body).Status
		})
	}
	wg.Wait()
	for _, st := range statuses {
		assert.Contains(t, []int{200, 409}, st)
	}
	assert.Equal(t, 1, countAuthorised(storedPayments(t, e, e.Account.ID)), "statuses %v", statuses)
	assert.Equal(t, "completed", sessionResult(t, e, s.ID)["status"])
}

// TestSetupOffersNoSecret: the setup's key is a public JWK (no private
// member), the same as GET /v1/payments/direct/keys lists first.
func TestSetupOffersNoSecret(t *testing.T) {
	e := newEnv(t)
	ck := e.NewClientKey(origin)
	k := setupKey(t, e, ck, createSession(t, e, nil))
	for _, private := range []string{"d", "p", "q", "dp", "dq", "qi"} {
		assert.NotContains(t, k.JWK, private)
	}
	assert.Equal(t, "RSA", k.JWK["kty"])
	assert.True(t, strings.HasPrefix(k.KID, "cse_"))
}

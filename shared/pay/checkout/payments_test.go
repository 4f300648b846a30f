package checkout_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/testkit/apitest"
)

type payResp struct {
	ResultCode    string `json:"resultCode"`
	PSPReference  string `json:"pspReference"`
	RefusalReason string `json:"refusalReason"`
	Action        *struct {
		Type               string `json:"type"`
		Subtype            string `json:"subtype"`
		PaymentData        string `json:"paymentData"`
		AuthorisationToken string `json:"authorisationToken"`
		URL                string `json:"url"`
	} `json:"action"`
}

func pay(t *testing.T, e *apitest.Env, path string, body any, schema string, headers ...string) payResp {
	t.Helper()
	r := e.Do("POST", path, body, headers...)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	adyenValid(t, schema, r.Body)
	var p payResp
	r.JSON(t, &p)
	return p
}

func TestAdvancedFlowOutcomes(t *testing.T) {
	e := newEnv(t)
	p := pay(t, e, "/v2/payments", paymentBody("ord-1", card("4111111111111111")), "PaymentResponse")
	assert.Equal(t, "Authorised", p.ResultCode)
	// Raw card fields (not the test_ encrypted ones), refused by holder name.
	raw := map[string]any{"type": "scheme", "number": "5555555555554444", "expiryMonth": "03", "expiryYear": "2030", "cvc": "737", "holderName": "DECLINED"}
	p = pay(t, e, "/v2/payments", paymentBody("ord-2", raw), "PaymentResponse")
	assert.Equal(t, "Refused", p.ResultCode)
	assert.Equal(t, "Refused", p.RefusalReason)
	p = pay(t, e, "/v2/payments", paymentBody("ord-3", card("4000000000000002")), "PaymentResponse")
	assert.Equal(t, "Error", p.ResultCode)
	p = pay(t, e, "/v2/payments", paymentBody("ord-4", map[string]any{"type": "applepay", "applePayToken": "test_applepay_authorised"}), "PaymentResponse")
	assert.Equal(t, "Authorised", p.ResultCode)
	p = pay(t, e, "/v2/payments", paymentBody("ord-5", map[string]any{"type": "googlepay", "googlePayToken": "test_googlepay_refused"}), "PaymentResponse")
	assert.Equal(t, "Refused", p.ResultCode)

	// 3DS2 frictionless: fingerprint, then authorised.
	p = pay(t, e, "/v2/payments", paymentBody("ord-6", card("4917610000000000")), "PaymentResponse")
	require.Equal(t, "IdentifyShopper", p.ResultCode)
	require.Equal(t, "fingerprint", p.Action.Subtype)
	d := pay(t, e, "/v2/payments/details", map[string]any{"details": map[string]any{"threeDSResult": threeDS("", p.Action.AuthorisationToken)}}, "PaymentDetailsResponse")
	assert.Equal(t, "Authorised", d.ResultCode)

	// 3DS2 challenge: fingerprint, challenge, then transStatus Y.
	p = pay(t, e, "/v2/payments", paymentBody("ord-7", card("5454545454545454")), "PaymentResponse")
	require.Equal(t, "IdentifyShopper", p.ResultCode)
	d = pay(t, e, "/v2/payments/details", map[string]any{"details": map[string]any{"threeDSResult": threeDS("", "")}, "paymentData": p.Action.PaymentData}, "PaymentDetailsResponse")
	require.Equal(t, "ChallengeShopper", d.ResultCode)
	require.Equal(t, "challenge", d.Action.Subtype)
	// The fingerprint's token cannot pass the challenge: it answers the
	// payment as it stands, still waiting for the challenge.
	stale := pay(t, e, "/v2/payments/details", map[string]any{"details": map[string]any{"threeDSResult": threeDS("Y", p.Action.AuthorisationToken)}}, "PaymentDetailsResponse")
	assert.Equal(t, "ChallengeShopper", stale.ResultCode)
	assert.Equal(t, d.Action.AuthorisationToken, stale.Action.AuthorisationToken)
	d = pay(t, e, "/v2/payments/details", map[string]any{"details": map[string]any{"threeDSResult": threeDS("Y", d.Action.AuthorisationToken)}}, "PaymentDetailsResponse")
	assert.Equal(t, "Authorised", d.ResultCode)

	// Challenge failed through the test helper's password.
	p = pay(t, e, "/v2/payments", paymentBody("ord-8", card("5454545454545454")), "PaymentResponse")
	d = pay(t, e, "/v2/payments/details", map[string]any{"details": map[string]any{"threeDSResult": threeDS("", p.Action.AuthorisationToken)}}, "PaymentDetailsResponse")
	require.Equal(t, "ChallengeShopper", d.ResultCode)
	h := pay(t, e, "/test-helpers/payments/"+p.PSPReference+"/challenge", map[string]any{"password": "wrong"}, "PaymentDetailsResponse")
	assert.Equal(t, "Refused", h.ResultCode)
	// Challenge passed through the test helper.
	p = pay(t, e, "/v2/payments", paymentBody("ord-9", card("5454545454545454")), "PaymentResponse")
	d = pay(t, e, "/v2/payments/details", map[string]any{"details": map[string]any{"threeDSResult": threeDS("", p.Action.AuthorisationToken)}}, "PaymentDetailsResponse")
	h = pay(t, e, "/test-helpers/payments/"+p.PSPReference+"/challenge", map[string]any{"password": "password"}, "PaymentDetailsResponse")
	assert.Equal(t, "Authorised", h.ResultCode)

	// Redirect card: back on returnUrl with redirectResult.
	p = pay(t, e, "/v2/payments", paymentBody("ord-10", card("4212345678901237")), "PaymentResponse")
	require.Equal(t, "RedirectShopper", p.ResultCode)
	require.Equal(t, "redirect", p.Action.Type)
	rr := p.Action.URL[len("https://shop.example.com/return?redirectResult="):]
	d = pay(t, e, "/v2/payments/details", map[string]any{"details": map[string]any{"redirectResult": rr}}, "PaymentDetailsResponse")
	assert.Equal(t, "Authorised", d.ResultCode)

	ps := storedPayments(t, e, e.Account.ID)
	assert.Len(t, ps, 10)
	assert.Equal(t, 6, countAuthorised(ps))
}

func TestAdvancedFlowBadInput(t *testing.T) {
	e := newEnv(t)
	expired := card("4111111111111111")
	expired["encryptedExpiryYear"] = "test_2020"
	noReturn := paymentBody("ord-1", card("4111111111111111"))
	delete(noReturn, "returnUrl")
	cases := []struct {
		name   string
		body   map[string]any
		status int
		param  string
	}{
		{"Luhn failure", paymentBody("ord-1", card("4111111111111112")), 400, "paymentMethod.encryptedCardNumber"},
		{"expired card", paymentBody("ord-1", expired), 400, "paymentMethod.encryptedExpiryYear"},
		{"returnUrl missing", noReturn, 400, "returnUrl"},
		{"encrypted data that is not test data", paymentBody("ord-1", map[string]any{"type": "scheme", "encryptedCardNumber": "adyenjs_0_1_25$abc", "encryptedExpiryMonth": "test_03", "encryptedExpiryYear": "test_2030"}), 400, "paymentMethod.encryptedCardNumber"},
		{"unknown wallet token", paymentBody("ord-1", map[string]any{"type": "applepay", "applePayToken": "xyz"}), 400, "paymentMethod.applePayToken"},
		{"paymentMethod missing", paymentBody("ord-1", nil), 400, "paymentMethod"},
		{"reference too short", paymentBody("o", card("4111111111111111")), 400, "reference"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.body["paymentMethod"] == nil {
				delete(c.body, "paymentMethod")
			}
			r := e.Do("POST", "/v2/payments", c.body)
			require.Equal(t, c.status, r.Status, "%s", r.Body)
			assert.Equal(t, c.param, r.Err(t)["param"], "%s", r.Body)
		})
	}
	assert.Empty(t, storedPayments(t, e, e.Account.ID), "no bad request records a payment")

	// Live keys never take raw or test card data.
	live, liveKey := e.NewAccount("live")
	r := e.DoKey(liveKey, "POST", "/v2/payments", paymentBody("ord-1", card("4111111111111111")))
	assert.Equal(t, 400, r.Status)
	assert.Equal(t, "test_data_in_live_mode", r.Err(t)["code"])
	assert.Empty(t, storedPayments(t, e, live.ID))
	// Test helpers take test keys only.
	assert.Equal(t, 403, e.DoKey(liveKey, "POST", "/test-helpers/payments/x/challenge", map[string]any{"password": "password"}).Status)
	// A details token of another account is not valid here.
	p := pay(t, e, "/v2/payments", paymentBody("ord-2", card("4917610000000000")), "PaymentResponse")
	_, otherKey := e.NewAccount("test")
	r = e.DoKey(otherKey, "POST", "/v2/payments/details", map[string]any{"details": map[string]any{"threeDSResult": threeDS("", p.Action.AuthorisationToken)}})
	assert.Equal(t, 400, r.Status)
}

func TestIdempotentPaymentRetry(t *testing.T) {
	e := newEnv(t)
	body := paymentBody("ord-1", card("4111111111111111"))
	a := e.Do("POST", "/v2/payments", body, "Idempotency-Key", "pay-1")
	b := e.Do("POST", "/v2/payments", body, "Idempotency-Key", "pay-1")
	require.Equal(t, 200, a.Status)
	require.Equal(t, 200, b.Status)
	assert.Equal(t, a.Map(t)["pspReference"], b.Map(t)["pspReference"])
	assert.Equal(t, "true", b.Header.Get("Idempotent-Replayed"))
	assert.Len(t, storedPayments(t, e, e.Account.ID), 1, "a retry makes no second payment")
}

func TestPaymentMethodsFilters(t *testing.T) {
	e := newEnv(t)
	types := func(body map[string]any) []string {
		r := e.Do("POST", "/v2/paymentMethods", body)
		require.Equal(t, 200, r.Status, "%s", r.Body)
		adyenValid(t, "PaymentMethodsResponse", r.Body)
		var m struct {
			PaymentMethods []struct {
				Type   string   `json:"type"`
				Brands []string `json:"brands"`
			} `json:"paymentMethods"`
		}
		r.JSON(t, &m)
		var out []string
		for _, pm := range m.PaymentMethods {
			out = append(out, pm.Type)
			if pm.Type == "scheme" {
				out = append(out, pm.Brands...)
			}
		}
		return out
	}
	amount := map[string]any{"value": 1000, "currency": "EUR"}
	assert.Equal(t, []string{"scheme", "visa", "mc", "amex", "applepay"}, types(map[string]any{"amount": amount, "channel": "iOS", "countryCode": "NL"}))
	assert.Equal(t, []string{"scheme", "visa", "mc", "amex", "googlepay"}, types(map[string]any{"amount": amount, "channel": "Android"}))
	assert.Equal(t, []string{"scheme", "visa", "mc", "applepay", "googlepay"}, types(map[string]any{"amount": map[string]any{"value": 1000, "currency": "KZT"}, "channel": "Web"}))
	assert.Equal(t, []string{"scheme", "visa", "mc", "amex"}, types(map[string]any{"amount": map[string]any{"value": 0, "currency": "EUR"}}))
	assert.Equal(t, []string{"scheme", "visa", "mc", "amex"}, types(map[string]any{"amount": amount, "countryCode": "AR"}))
	assert.Equal(t, []string{"applepay"}, types(map[string]any{"allowedPaymentMethods": []string{"applepay"}}))

	// A card stored with an authorised payment is listed for its shopper
	// and pays without a CVC.
	body := paymentBody("ord-1", card("4111111111111111"))
	body["shopperReference"], body["storePaymentMethod"] = "shopper-1", true
	pay(t, e, "/v2/payments", body, "PaymentResponse")
	r := e.Do("POST", "/v2/paymentMethods", map[string]any{"shopperReference": "shopper-1"})
	adyenValid(t, "PaymentMethodsResponse", r.Body)
	var m struct {
		Stored []struct {
			ID       string `json:"id"`
			LastFour string `json:"lastFour"`
		} `json:"storedPaymentMethods"`
	}
	r.JSON(t, &m)
	require.Len(t, m.Stored, 1)
	assert.Equal(t, "1111", m.Stored[0].LastFour)
	again := paymentBody("ord-2", map[string]any{"type": "scheme", "storedPaymentMethodId": m.Stored[0].ID})
	again["shopperReference"] = "shopper-1"
	assert.Equal(t, "Authorised", pay(t, e, "/v2/payments", again, "PaymentResponse").ResultCode)
	r = e.Do("POST", "/v2/paymentMethods", map[string]any{"shopperReference": "shopper-2"})
	assert.NotContains(t, string(r.Body), "storedPaymentMethods")
}

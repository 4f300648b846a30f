package adyencheckout_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/cse"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/providers/adyencheckout"
)

var ctx = context.Background()

func connector(t testing.TB, f *fakeAdyen, mod func(*adyencheckout.Config)) *adyencheckout.Processor {
	t.Helper()
	c := adyencheckout.Config{ID: "conn_1", Account: "acct_1", URL: f.URL(), MerchantAccount: merchantAccount, APIKey: apiKey}
	if mod != nil {
		mod(&c)
	}
	p, err := adyencheckout.New(c)
	require.NoError(t, err)
	return p
}

var (
	now    = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	charge = cards.Charge{Account: "acct_1", ManualCapture: true, Key: "pg-key-1", Reference: "pay_123", Amount: 1250, Currency: "EUR",
		ReturnURL: "https://shop.example.com/return", ShopperReference: "shopper-42", Now: now}
	visa = cards.Card{Number: "4111111111111111", ExpiryMonth: "03", ExpiryYear: "2030", CVC: "737", HolderName: "J Smith"}
)

func authorised(g got) answer {
	return answer{Status: 200, Body: map[string]any{"resultCode": "Authorised", "pspReference": "PSP0001",
		"merchantReference": g.Body["reference"], "amount": map[string]any{"value": 1250, "currency": "EUR"},
		"paymentMethod":  map[string]any{"type": "scheme", "brand": "visa"},
		"additionalData": map[string]any{"cardSummary": "1111", "tokenization.storedPaymentMethodId": "SPM0001"}}}
}

// TestAuthoriseCardSendsAdyensPaymentRequest: the raw card, the charge's
// amount, reference, return URL and shopper, manual capture, and the
// headers; the answer maps to an authorised outcome with the pspReference,
// brand, last four and stored method id.
func TestAuthoriseCardSendsAdyensPaymentRequest(t *testing.T) {
	f := newFake(t, authorised)
	out, err := connector(t, f, nil).AuthoriseCard(ctx, charge, visa)
	require.NoError(t, err)
	assert.Equal(t, cards.Outcome{Result: cards.Authorised, PSPReference: "PSP0001", Reference: "pay_123", Brand: "visa", Last4: "1111", Profile: "SPM0001"}, out)

	g := f.last()
	assert.Equal(t, "/payments", g.Path)
	assert.Equal(t, apiKey, g.Header.Get("X-API-Key"))
	assert.Equal(t, "application/json", g.Header.Get("Content-Type"))
	assert.Equal(t, "pg-key-1", g.Header.Get("Idempotency-Key"))
	assert.Equal(t, map[string]any{
		"merchantAccount": merchantAccount, "amount": map[string]any{"value": 1250.0, "currency": "EUR"},
		"reference": "pay_123", "returnUrl": "https://shop.example.com/return", "channel": "Web",
		"shopperReference": "shopper-42", "shopperInteraction": "Ecommerce",
		"additionalData": map[string]any{"manualCapture": "true"},
		"paymentMethod": map[string]any{"type": "scheme", "number": "4111111111111111", "expiryMonth": "03",
			"expiryYear": "2030", "cvc": "737", "holderName": "J Smith"},
	}, g.Body)
}

// TestReturnURLDefaults: a charge without a return URL sends the
// connector's, else DefaultReturnURL (Adyen requires one).
func TestReturnURLDefaults(t *testing.T) {
	f := newFake(t, authorised)
	ch := charge
	ch.ReturnURL, ch.ShopperReference = "", ""
	_, err := connector(t, f, nil).AuthoriseCard(ctx, ch, visa)
	require.NoError(t, err)
	assert.Equal(t, adyencheckout.DefaultReturnURL, f.last().Body["returnUrl"])
	assert.NotContains(t, f.last().Body, "shopperReference")
	_, err = connector(t, f, func(c *adyencheckout.Config) { c.ReturnURL = "https://pay.example.com/back" }).AuthoriseCard(ctx, ch, visa)
	require.NoError(t, err)
	assert.Equal(t, "https://pay.example.com/back", f.last().Body["returnUrl"])
}

// TestEncryptedCardFields: with an encryption key each card field goes as
// the JWE this service's client-side encryption opens (RSA-OAEP-256,
// A256CBC-HS512, version 1, the key's kid) over its field and the
// generationtime, and no card field goes in clear.
func TestEncryptedCardFields(t *testing.T) {
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	jwk, err := jose.JSONWebKey{Key: &priv.PublicKey, KeyID: "cse_test", Algorithm: cse.Alg, Use: "enc"}.MarshalJSON()
	require.NoError(t, err)
	f := newFake(t, authorised)
	_, err = connector(t, f, func(c *adyencheckout.Config) { c.EncryptionKey = string(jwk) }).AuthoriseCard(ctx, charge, visa)
	require.NoError(t, err)
	g := f.last()
	assert.NotContains(t, g.Raw, "4111111111111111")
	assert.NotContains(t, g.Raw, `"737"`)
	pm := g.Body["paymentMethod"].(map[string]any)
	for _, k := range []string{"number", "expiryMonth", "expiryYear", "cvc"} {
		assert.NotContains(t, pm, k)
	}
	assert.Equal(t, "J Smith", pm["holderName"])
	for field, want := range map[string][2]string{
		"encryptedCardNumber": {"number", "4111111111111111"}, "encryptedExpiryMonth": {"expiryMonth", "03"},
		"encryptedExpiryYear": {"expiryYear", "2030"}, "encryptedSecurityCode": {"cvc", "737"},
	} {
		s, _ := pm[field].(string)
		obj, err := jose.ParseEncryptedCompact(s, []jose.KeyAlgorithm{jose.RSA_OAEP_256}, []jose.ContentEncryption{jose.A256CBC_HS512})
		require.NoError(t, err, field)
		assert.Equal(t, "cse_test", obj.Header.KeyID)
		assert.Equal(t, "1", obj.Header.ExtraHeaders["version"])
		plain, err := obj.Decrypt(priv)
		require.NoError(t, err, field)
		var payload map[string]string
		require.NoError(t, json.Unmarshal(plain, &payload))
		assert.Equal(t, want[1], payload[want[0]], field)
		gen, err := cse.ParseGenerationTime(payload["generationtime"])
		require.NoError(t, err)
		assert.True(t, gen.Equal(now), field)
	}
}

// TestNewRefusesABadConfig: what New refuses, and that its errors never
// show the API key.
func TestNewRefusesABadConfig(t *testing.T) {
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	private, err := jose.JSONWebKey{Key: priv}.MarshalJSON()
	require.NoError(t, err)
	for name, c := range map[string]adyencheckout.Config{
		"no URL":           {MerchantAccount: "m", APIKey: apiKey},
		"no merchant":      {URL: "https://x.example/v71", APIKey: apiKey},
		"no key":           {URL: "https://x.example/v71", MerchantAccount: "m"},
		"ftp URL":          {URL: "ftp://x.example/v71", MerchantAccount: "m", APIKey: apiKey},
		"not a JWK":        {URL: "https://x.example/v71", MerchantAccount: "m", APIKey: apiKey, EncryptionKey: "10001|ABCD"},
		"a private key":    {URL: "https://x.example/v71", MerchantAccount: "m", APIKey: apiKey, EncryptionKey: string(private)},
		"an octet key JWK": {URL: "https://x.example/v71", MerchantAccount: "m", APIKey: apiKey, EncryptionKey: `{"kty":"oct","k":"AAAA"}`},
	} {
		_, err := adyencheckout.New(c)
		require.Error(t, err, name)
		assert.NotContains(t, err.Error(), apiKey, name)
	}
}

func threeDS2Action(subtype string) map[string]any {
	token, _ := json.Marshal(map[string]string{"threeDSServerTransID": "c0ffee00-0000-4000-8000-000000000001", "acsURL": "https://acs.example.com/challenge", "messageVersion": "2.2.0"})
	return map[string]any{"type": "threeDS2", "subtype": subtype, "token": base64.StdEncoding.EncodeToString(token),
		"paymentData": "Ab02b4c0!BQABAgA...adyen-payment-data", "authorisationToken": "BQABAQ...adyen-auth-token", "paymentMethodType": "scheme"}
}

// TestChallengeIsRelayedAndContinued: a ChallengeShopper answer carries
// Adyen's action as it is and keeps its paymentData and
// authorisationToken in Data; Continue sends them back with the
// transStatus, as the 3DS2 component would, keyed by the charge's key.
func TestChallengeIsRelayedAndContinued(t *testing.T) {
	f := newFake(t, ok(200, map[string]any{"resultCode": "ChallengeShopper", "pspReference": "PSP0002", "action": threeDS2Action("challenge")}))
	p := connector(t, f, nil)
	out, err := p.AuthoriseCard(ctx, charge, visa)
	require.NoError(t, err)
	assert.Equal(t, cards.ChallengeShopper, out.Result)
	assert.Equal(t, cards.FlowChallenge, out.Flow)
	assert.Equal(t, "PSP0002", out.PSPReference)
	require.NotNil(t, out.Action)
	assert.Equal(t, "threeDS2", out.Action.Type)
	assert.Equal(t, "challenge", out.Action.Subtype)
	assert.Equal(t, threeDS2Action("challenge")["token"], out.Action.Token)
	assert.Equal(t, "scheme", out.Action.PaymentMethodType)
	require.NotEmpty(t, out.Data)

	f.setReply(ok(200, map[string]any{"resultCode": "Authorised", "pspReference": "PSP0002", "merchantReference": "pay_123"}))
	ch := charge
	ch.Key = "pg-key-details"
	got2, err := p.Continue(ctx, ch, cards.Step{Asked: cards.ChallengeShopper, Flow: out.Flow, TransStatus: "Y", PSPReference: out.PSPReference, Data: out.Data})
	require.NoError(t, err)
	assert.Equal(t, cards.Authorised, got2.Result)
	assert.Equal(t, "PSP0002", got2.PSPReference)
	g := f.last()
	assert.Equal(t, "/payments/details", g.Path)
	assert.Equal(t, "pg-key-details", g.Header.Get("Idempotency-Key"))
	assert.Equal(t, "Ab02b4c0!BQABAgA...adyen-payment-data", g.Body["paymentData"])
	details := g.Body["details"].(map[string]any)
	raw, err := base64.StdEncoding.DecodeString(details["threeDSResult"].(string))
	require.NoError(t, err)
	var tds map[string]string
	require.NoError(t, json.Unmarshal(raw, &tds))
	assert.Equal(t, map[string]string{"transStatus": "Y", "authorisationToken": "BQABAQ...adyen-auth-token"}, tds)
}

// TestFingerprintStepSendsThreeDSCompInd: an IdentifyShopper step sends
// the device fingerprint's threeDSCompInd.
func TestFingerprintStepSendsThreeDSCompInd(t *testing.T) {
	f := newFake(t, ok(200, map[string]any{"resultCode": "IdentifyShopper", "pspReference": "PSP0003", "action": threeDS2Action("fingerprint")}))
	p := connector(t, f, nil)
	out, err := p.AuthoriseCard(ctx, charge, visa)
	require.NoError(t, err)
	assert.Equal(t, cards.IdentifyShopper, out.Result)
	assert.Equal(t, "fingerprint", out.Action.Subtype)
	f.setReply(ok(200, map[string]any{"resultCode": "ChallengeShopper", "pspReference": "PSP0003", "action": threeDS2Action("challenge")}))
	next, err := p.Continue(ctx, charge, cards.Step{Asked: cards.IdentifyShopper, ThreeDSCompInd: "Y", Data: out.Data})
	require.NoError(t, err)
	assert.Equal(t, cards.ChallengeShopper, next.Result)
	raw, _ := base64.StdEncoding.DecodeString(f.last().Body["details"].(map[string]any)["threeDSResult"].(string))
	assert.JSONEq(t, `{"threeDSCompInd": "Y", "authorisationToken": "BQABAQ...adyen-auth-token"}`, string(raw))
}

// TestRedirectIsRelayedAndContinued: a RedirectShopper answer's GET action
// is relayed; Continue sends the redirectResult.
func TestRedirectIsRelayedAndContinued(t *testing.T) {
	f := newFake(t, ok(200, map[string]any{"resultCode": "RedirectShopper", "pspReference": "PSP0004",
		"action": map[string]any{"type": "redirect", "method": "GET", "url": "https://issuer.example.com/3ds?x=1", "paymentMethodType": "scheme"}}))
	p := connector(t, f, nil)
	out, err := p.AuthoriseCard(ctx, charge, visa)
	require.NoError(t, err)
	assert.Equal(t, cards.RedirectShopper, out.Result)
	assert.Equal(t, cards.FlowRedirect, out.Flow)
	assert.Equal(t, &cards.Action{Type: "redirect", Method: "GET", URL: "https://issuer.example.com/3ds?x=1", PaymentMethodType: "scheme"}, out.Action)

	f.setReply(ok(200, map[string]any{"resultCode": "Refused", "pspReference": "PSP0004", "refusalReason": "3D Not Authenticated", "refusalReasonCode": "11"}))
	_, err = p.Continue(ctx, charge, cards.Step{Asked: cards.RedirectShopper, Data: out.Data})
	assert.True(t, apierr.Is(err, apierr.Invalid), "a redirect step without its result is bad input: %v", err)
	done, err := p.Continue(ctx, charge, cards.Step{Asked: cards.RedirectShopper, RedirectResult: "X6XtfGC3!Y...", Data: out.Data})
	require.NoError(t, err)
	assert.Equal(t, cards.Outcome{Result: cards.Refused, PSPReference: "PSP0004", RefusalReason: "3D Not Authenticated", RefusalReasonCode: "11"}, done)
	assert.Equal(t, map[string]any{"details": map[string]any{"redirectResult": "X6XtfGC3!Y..."}}, f.last().Body)

	// A POST redirect's form data has no place in the port's action.
	f.setReply(ok(200, map[string]any{"resultCode": "RedirectShopper", "action": map[string]any{"type": "redirect", "method": "POST",
		"url": "https://issuer.example.com/3ds1", "data": map[string]any{"PaReq": "x", "MD": "y", "TermUrl": "https://t.example"}}}))
	_, err = p.AuthoriseCard(ctx, charge, visa)
	assert.True(t, apierr.HasCode(err, adyencheckout.CodeMethodUnsupported), "%v", err)
}

// TestResultCodes: each resultCode's outcome (or error).
func TestResultCodes(t *testing.T) {
	f := newFake(t, nil)
	p := connector(t, f, nil)
	for code, want := range map[string]cards.Result{"Authorised": cards.Authorised, "Refused": cards.Refused, "Error": cards.Error, "Cancelled": cards.Cancelled} {
		body := map[string]any{"resultCode": code, "pspReference": "PSP1"}
		if code == "Refused" {
			body["refusalReason"], body["refusalReasonCode"] = "Not enough balance", "12"
		}
		f.setReply(ok(200, body))
		out, err := p.AuthoriseCard(ctx, charge, visa)
		require.NoError(t, err, code)
		assert.Equal(t, want, out.Result)
		assert.Equal(t, "PSP1", out.PSPReference)
		assert.Equal(t, "visa", out.Brand, "Adyen named none: the card's")
		assert.Equal(t, "1111", out.Last4, "Adyen named none: the card's")
		if code == "Refused" {
			assert.Equal(t, "Not enough balance", out.RefusalReason)
			assert.Equal(t, "12", out.RefusalReasonCode)
		}
	}
	for _, code := range []string{"Received", "Pending"} {
		f.setReply(ok(200, map[string]any{"resultCode": code, "pspReference": "PSP2"}))
		_, err := p.AuthoriseCard(ctx, charge, visa)
		assert.True(t, apierr.HasCode(err, adyencheckout.CodeOutcomePending), "%s: %v", code, err)
		assert.Equal(t, 409, apierr.KindOf(err).Status())
	}
	f.setReply(ok(200, map[string]any{"resultCode": "PresentToShopper", "pspReference": "PSP3"}))
	_, err := p.AuthoriseCard(ctx, charge, visa)
	assert.True(t, apierr.Is(err, apierr.Internal), "%v", err)
	f.setReply(ok(200, map[string]any{"resultCode": "ChallengeShopper", "pspReference": "PSP4"}))
	_, err = p.AuthoriseCard(ctx, charge, visa)
	assert.True(t, apierr.Is(err, apierr.Internal), "a step without its action: %v", err)
}

// TestStoredCards: a saved card's Profile is Adyen's
// storedPaymentMethodId; with the shopper present the charge is Ecommerce
// card-on-file, off session ContAuth unscheduled card-on-file.
func TestStoredCards(t *testing.T) {
	f := newFake(t, ok(200, map[string]any{"resultCode": "Authorised", "pspReference": "PSP5"}))
	p := connector(t, f, nil)
	saved := cards.SavedCard{Profile: "SPM0001", Brand: "visa", Last4: "1111", ExpiryMonth: "03", ExpiryYear: "2030"}
	out, err := p.AuthoriseStored(ctx, charge, saved, false)
	require.NoError(t, err)
	assert.Equal(t, cards.Profile("SPM0001"), out.Profile)
	assert.Equal(t, "visa", out.Brand)
	assert.Equal(t, "1111", out.Last4)
	b := f.last().Body
	assert.Equal(t, map[string]any{"type": "scheme", "storedPaymentMethodId": "SPM0001"}, b["paymentMethod"])
	assert.Equal(t, "shopper-42", b["shopperReference"])
	assert.Equal(t, "Ecommerce", b["shopperInteraction"])
	assert.Equal(t, "CardOnFile", b["recurringProcessingModel"])

	_, err = p.AuthoriseStored(ctx, charge, saved, true)
	require.NoError(t, err)
	b = f.last().Body
	assert.Equal(t, "ContAuth", b["shopperInteraction"])
	assert.Equal(t, "UnscheduledCardOnFile", b["recurringProcessingModel"])

	n := len(f.requests())
	ch := charge
	ch.ShopperReference = ""
	_, err = p.AuthoriseStored(ctx, ch, saved, true)
	assert.True(t, apierr.Is(err, apierr.Invalid), "%v", err)
	_, err = p.AuthoriseStored(ctx, charge, cards.SavedCard{}, true)
	assert.True(t, apierr.HasCode(err, adyencheckout.CodeMethodUnsupported), "%v", err)
	assert.Len(t, f.requests(), n, "nothing sent")
}

// TestWalletsAndNetworkTokens: wallet tokens go as Adyen's applePayToken
// and googlePayToken; a network token without a cryptogram is a card
// without a CVC; with one, or another wallet, a clear error and no call.
func TestWalletsAndNetworkTokens(t *testing.T) {
	f := newFake(t, ok(200, map[string]any{"resultCode": "Authorised", "pspReference": "PSP6"}))
	p := connector(t, f, nil)
	_, err := p.AuthoriseWallet(ctx, charge, cards.ApplePay, "eyJhcHBsZS1wYXk=")
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"type": "applepay", "applePayToken": "eyJhcHBsZS1wYXk="}, f.last().Body["paymentMethod"])
	_, err = p.AuthoriseWallet(ctx, charge, cards.GooglePay, `{"signature":"x"}`)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"type": "googlepay", "googlePayToken": `{"signature":"x"}`}, f.last().Body["paymentMethod"])
	_, err = p.AuthoriseNetworkToken(ctx, charge, visa, false)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"type": "scheme", "number": "4111111111111111", "expiryMonth": "03", "expiryYear": "2030"}, f.last().Body["paymentMethod"])

	n := len(f.requests())
	_, err = p.AuthoriseNetworkToken(ctx, charge, visa, true)
	assert.True(t, apierr.HasCode(err, adyencheckout.CodeMethodUnsupported), "%v", err)
	_, err = p.AuthoriseWallet(ctx, charge, "samsungpay", "tok")
	assert.True(t, apierr.HasCode(err, adyencheckout.CodeMethodUnsupported), "%v", err)
	_, err = p.AuthoriseWallet(ctx, charge, cards.ApplePay, "")
	assert.True(t, apierr.HasCode(err, cards.CodeInvalidWalletToken), "%v", err)
	assert.Len(t, f.requests(), n, "nothing sent")
}

func modificationAnswer(g got) answer {
	path := strings.Split(strings.TrimPrefix(g.Path, "/payments/"), "/")
	body := map[string]any{"merchantAccount": g.Body["merchantAccount"], "paymentPspReference": path[0], "pspReference": "MOD" + path[1], "status": "received"}
	if g.Body["reference"] != nil {
		body["reference"] = g.Body["reference"]
	}
	if a, ok := g.Body["amount"]; ok {
		body["amount"] = a
	}
	return answer{Status: 201, Body: body}
}

// TestModifications: capture, cancel, refund and reversal go to the
// payment's pspReference with the modification's id as reference; each
// key is stable across repeats and differs by kind, modification and
// account.
func TestModifications(t *testing.T) {
	f := newFake(t, modificationAnswer)
	p := connector(t, f, nil)
	m := cards.Modification{ID: "mod_pay_123_3", Payment: "PSP0001", Amount: 700, Currency: "EUR"}
	keys := map[string]string{}
	for _, c := range []struct {
		kind, suffix string
		run          func(context.Context, cards.Modification) error
		amount       bool
	}{
		{"capture", "captures", p.Capture, true}, {"cancel", "cancels", p.Cancel, false},
		{"refund", "refunds", p.Refund, true}, {"reversal", "reversals", p.Reversal, false},
	} {
		require.NoError(t, c.run(ctx, m), c.kind)
		g := f.last()
		assert.Equal(t, "/payments/PSP0001/"+c.suffix, g.Path)
		want := map[string]any{"merchantAccount": merchantAccount, "reference": "mod_pay_123_3"}
		if c.amount {
			want["amount"] = map[string]any{"value": 700.0, "currency": "EUR"}
		}
		assert.Equal(t, want, g.Body, c.kind)
		key := g.Header.Get("Idempotency-Key")
		assert.Equal(t, cards.OperationKey("acct_1", m.ID, c.kind), key)
		require.NoError(t, c.run(ctx, m), c.kind)
		assert.Equal(t, key, f.last().Header.Get("Idempotency-Key"), "a repeat is Adyen's retry")
		for other, k := range keys {
			assert.NotEqual(t, k, key, "%s and %s", c.kind, other)
		}
		keys[c.kind] = key
	}
	other := m
	other.ID = "mod_pay_123_4"
	require.NoError(t, p.Capture(ctx, other))
	assert.NotEqual(t, keys["capture"], f.last().Header.Get("Idempotency-Key"), "another modification, another key")
	require.NoError(t, connector(t, f, func(c *adyencheckout.Config) { c.Account = "acct_2" }).Capture(ctx, m))
	assert.NotEqual(t, keys["capture"], f.last().Header.Get("Idempotency-Key"), "another account, another key")

	odd := m
	odd.Payment = "PSP/../../x"
	require.NoError(t, p.Capture(ctx, odd))
	assert.Equal(t, "/payments/PSP%2F..%2F..%2Fx/captures", f.last().Path, "the reference is one path segment")
}

// TestFailuresAreUnavailableOrRefused: no answer, 5xx, 429 and 409 are
// Unavailable (retried with the same key); 401 and 403 are
// connector_unauthorized; another 4xx is connector_request_refused with
// Adyen's message. No error shows the API key.
func TestFailuresAreUnavailableOrRefused(t *testing.T) {
	f := newFake(t, nil)
	p := connector(t, f, nil)
	for _, c := range []struct {
		status int
		body   map[string]any
		kind   apierr.Kind
		code   apierr.Code
		msg    string
	}{
		{500, serviceError(500, "905", "Payment details are not supported", "configuration"), apierr.Unavailable, apierr.Code{}, ""},
		{502, serviceError(502, "000", "bad gateway", "internal"), apierr.Unavailable, apierr.Code{}, ""},
		{503, serviceError(503, "000", "down for maintenance", "internal"), apierr.Unavailable, apierr.Code{}, ""},
		{429, serviceError(429, "000", "too many requests", "internal"), apierr.Unavailable, apierr.Code{}, ""},
		{409, serviceError(409, "704", "request already processed or in progress", "validation"), apierr.Unavailable, apierr.Code{}, ""},
		{401, serviceError(401, "000", "HTTP Status Response - Unauthorized "+apiKey, "security"), apierr.Forbidden, adyencheckout.CodeUnauthorized, "Unauthorized"},
		{403, serviceError(403, "010", "Not allowed", "security"), apierr.Forbidden, adyencheckout.CodeUnauthorized, "Not allowed"},
		{422, serviceError(422, "101", "Invalid card number", "validation"), apierr.Invalid, adyencheckout.CodeRequestRefused, "Invalid card number (errorCode 101, errorType validation)"},
		{400, serviceError(400, "702", "Structure of the request is invalid", "validation"), apierr.Invalid, adyencheckout.CodeRequestRefused, "Structure of the request is invalid"},
	} {
		f.setReply(ok(c.status, c.body))
		_, err := p.AuthoriseCard(ctx, charge, visa)
		require.Error(t, err, c.status)
		assert.Equal(t, c.kind, apierr.KindOf(err), "%d: %v", c.status, err)
		if !c.code.IsZero() {
			assert.True(t, apierr.HasCode(err, c.code), "%d: %v", c.status, err)
			assert.Contains(t, apierr.As(err).Message, c.msg)
		}
		assert.NotContains(t, err.Error(), apiKey)
		assert.NotContains(t, apierr.As(err).Message, apiKey)
		assert.NotContains(t, err.Error(), "4111111111111111")
	}
	// Modifications fail alike.
	f.setReply(ok(500, serviceError(500, "000", "boom", "internal")))
	assert.True(t, apierr.Is(p.Refund(ctx, cards.Modification{ID: "m1", Payment: "PSP1", Amount: 1, Currency: "EUR"}), apierr.Unavailable))
	f.setReply(ok(422, serviceError(422, "167", "Original pspReference required for this operation", "validation")))
	err := p.Cancel(ctx, cards.Modification{ID: "m1", Payment: "PSP1"})
	assert.True(t, apierr.HasCode(err, adyencheckout.CodeRequestRefused), "%v", err)

	// Nobody listening.
	f.srv.Close()
	_, err = p.AuthoriseCard(ctx, charge, visa)
	assert.True(t, apierr.Is(err, apierr.Unavailable), "%v", err)
}

// TestRetriesKeepTheKey: an authorisation retried after a 5xx sends the
// same Idempotency-Key (the charge's), so Adyen authorises once.
func TestRetriesKeepTheKey(t *testing.T) {
	calls := 0
	f := newFake(t, func(g got) answer {
		calls++
		if calls == 1 {
			return answer{Status: 500, Body: serviceError(500, "000", "boom", "internal")}
		}
		return authorised(g)
	})
	p := connector(t, f, nil)
	_, err := p.AuthoriseCard(ctx, charge, visa)
	require.True(t, apierr.Is(err, apierr.Unavailable))
	out, err := p.AuthoriseCard(ctx, charge, visa)
	require.NoError(t, err)
	assert.Equal(t, cards.Authorised, out.Result)
	r := f.requests()
	require.Len(t, r, 2)
	assert.Equal(t, r[0].Header.Get("Idempotency-Key"), r[1].Header.Get("Idempotency-Key"))
	assert.Equal(t, r[0].Raw, r[1].Raw, "the same request")
}

// TestASlowAdyenTimesOut: an answer slower than Config.Timeout, or than
// the caller's deadline, is Unavailable at the timeout, not when Adyen
// answers.
func TestASlowAdyenTimesOut(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	f := newFake(t, func(g got) answer {
		return answer{Status: 200, Body: map[string]any{"resultCode": "Authorised"}, Block: block}
	})
	p := connector(t, f, func(c *adyencheckout.Config) { c.Timeout = 200 * time.Millisecond })
	start := time.Now()
	_, err := p.AuthoriseCard(ctx, charge, visa)
	assert.True(t, apierr.Is(err, apierr.Unavailable), "%v", err)
	assert.Less(t, time.Since(start), 3*time.Second)

	slowDefault := connector(t, f, nil) // DefaultTimeout: the context's deadline is shorter
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start = time.Now()
	err = slowDefault.Capture(short, cards.Modification{ID: "m1", Payment: "PSP1", Amount: 1, Currency: "EUR"})
	assert.True(t, apierr.Is(err, apierr.Unavailable), "%v", err)
	assert.Less(t, time.Since(start), 3*time.Second)
}

// TestReferenceAndThreeDS: the port's sandbox-only answers are empty here.
func TestReferenceAndThreeDS(t *testing.T) {
	p := connector(t, newFake(t, nil), nil)
	assert.Equal(t, cards.Profile(""), p.Reference("4111111111111111"))
	assert.Equal(t, cards.ThreeDS{}, p.ThreeDS())
}

// TestEncryptedRetrySendsTheSameBytes: an encrypted authorisation retried
// under the same key sends the first request's bytes (a provider that
// compares them takes the retry); another key, or another card, is
// encrypted anew.
func TestEncryptedRetrySendsTheSameBytes(t *testing.T) {
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	jwk, err := jose.JSONWebKey{Key: &priv.PublicKey, KeyID: "cse_test"}.MarshalJSON()
	require.NoError(t, err)
	f := newFake(t, authorised)
	p := connector(t, f, func(c *adyencheckout.Config) { c.EncryptionKey = string(jwk) })
	send := func(ch cards.Charge, c cards.Card) string {
		_, err := p.AuthoriseCard(ctx, ch, c)
		require.NoError(t, err)
		return f.last().Raw
	}
	first := send(charge, visa)
	assert.Equal(t, first, send(charge, visa))
	other := charge
	other.Key = "pg-key-2"
	assert.NotEqual(t, first, send(other, visa))
	mc := visa
	mc.Number = "5555555555554444"
	assert.NotEqual(t, first, send(charge, mc))
}

// TestAutomaticCaptureIsAdyens: a payment of ours in automatic capture asks
// Adyen for no manual capture (Adyen captures it; we send no capture), one
// the shopper saves asks it to store the card on file.
func TestAutomaticCaptureIsAdyens(t *testing.T) {
	f := newFake(t, authorised)
	ch := charge
	ch.ManualCapture, ch.StoreCard = false, true
	_, err := connector(t, f, nil).AuthoriseCard(ctx, ch, visa)
	require.NoError(t, err)
	body := f.last().Body
	assert.NotContains(t, body, "additionalData", "no manualCapture")
	assert.Equal(t, true, body["storePaymentMethod"])
	assert.Equal(t, "CardOnFile", body["recurringProcessingModel"])
}

package adyencheckout_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/pay/transactions"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/providers/adyencheckout"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// checked is a transport that holds every call the connector makes to
// Adyen's document: each request against its operation's request schema,
// each answer against the operation's response.
type checked struct {
	t    testing.TB
	base string // the URL prefix playing Adyen's /v71
	next http.RoundTripper
	n    atomic.Int64
}

func (c *checked) RoundTrip(r *http.Request) (*http.Response, error) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	path := strings.TrimPrefix(r.URL.EscapedPath(), c.base)
	v := adyenDoc(c.t)
	if schema := requestSchema(path); schema == "" {
		c.t.Errorf("the connector called %s", path)
	} else if err := v.ValidateSchema(schema, raw); err != nil {
		c.t.Errorf("%s: the request is not a valid %s: %v\n%s", path, schema, err, raw)
	}
	resp, err := c.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if resp.StatusCode < 300 {
		if err := v.Validate(r.Method, path, resp.StatusCode, resp.Header.Get("Content-Type"), body); err != nil {
			c.t.Errorf("the /v2 face's answer is not Adyen's: %v", err)
		}
	}
	c.n.Add(1)
	return resp, nil
}

// faceEnv is this service's own Adyen face (/v2: checkout's payments and
// the modifications) in-process, with a test key: the "Adyen" the
// connector talks to, a second gateway.
type faceEnv struct {
	*apitest.Env
	calls *checked
	n     atomic.Int64
}

func newFace(t *testing.T) *faceEnv {
	t.Helper()
	e := apitest.New(t, checkout.BuildCheckoutPayments, transactions.BuildCheckoutModifications, transactions.BuildTransactions)
	return &faceEnv{Env: e, calls: &checked{t: t, base: "/v2", next: e.Client.Transport}}
}

// connector is the connector to the face; encrypted: with the face's card
// key, as a merchant's Adyen account would be configured.
func (e *faceEnv) connector(t *testing.T, encrypted bool) *adyencheckout.Processor {
	t.Helper()
	c := adyencheckout.Config{ID: "conn_face", Account: "acct_gateway", URL: e.URL + "/v2", MerchantAccount: e.Account.MerchantAccount,
		APIKey: e.Key, Client: &http.Client{Transport: e.calls}}
	if encrypted {
		keys, err := checkout.CardKeyring(e.Deps)
		require.NoError(t, err)
		k, ok, err := keys.Current(context.Background())
		require.NoError(t, err)
		require.True(t, ok)
		jwk, err := k.JWKMap()
		require.NoError(t, err)
		raw, err := json.Marshal(jwk)
		require.NoError(t, err)
		c.EncryptionKey = string(raw)
	}
	p, err := adyencheckout.New(c)
	require.NoError(t, err)
	return p
}

// charge is a new payment of ours (its key and reference fresh).
func (e *faceEnv) charge() cards.Charge {
	n := e.n.Add(1)
	return cards.Charge{Account: "acct_gateway", ManualCapture: true, Key: fmt.Sprintf("pg-%s-%d", e.T.Name(), n), Reference: fmt.Sprintf("pay_gw_%d", n),
		Amount: 2500, Currency: "EUR", ReturnURL: "https://gateway.example.com/return", Now: e.Clock.Now()}
}

func testCard(number string) cards.Card {
	return cards.Card{Number: number, ExpiryMonth: "03", ExpiryYear: "2030", CVC: "737", HolderName: "J Smith"}
}

// status is the face's record of a payment (its /v1 transaction).
func (e *faceEnv) status(t *testing.T, psp string) string {
	t.Helper()
	r := e.Do("GET", "/v1/transactions/"+psp, nil)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	return r.Map(t)["status"].(string)
}

// TestAgainstTheV2Face: the connector's calls, run against this service's
// own Adyen face with its sandbox behind it: a card authorised (raw and
// client-side encrypted), a refused test card, the challenge card's two 3-D
// Secure steps, and the capture, refund and cancel the face accepts.
func TestAgainstTheV2Face(t *testing.T) {
	e := newFace(t)
	for _, encrypted := range []bool{false, true} {
		t.Run(fmt.Sprintf("encrypted=%v", encrypted), func(t *testing.T) {
			p := e.connector(t, encrypted)

			// Authorised, held for the capture the gateway sends.
			ch := e.charge()
			out, err := p.AuthoriseCard(ctx, ch, testCard("4111111111111111"))
			require.NoError(t, err)
			assert.Equal(t, cards.Authorised, out.Result)
			assert.Equal(t, "visa", out.Brand)
			require.NotEmpty(t, out.PSPReference)
			assert.Equal(t, "authorized", e.status(t, out.PSPReference), "manual capture: held")
			again, err := p.AuthoriseCard(ctx, ch, testCard("4111111111111111"))
			require.NoError(t, err)
			assert.Equal(t, out.PSPReference, again.PSPReference, "the same key is the same payment")

			m := cards.Modification{ID: "mod_" + ch.Reference + "_1", Payment: out.PSPReference, Amount: 2000, Currency: "EUR"}
			require.NoError(t, p.Capture(ctx, m))
			require.NoError(t, p.Capture(ctx, m), "a repeat is harmless")
			assert.Equal(t, "charged", e.status(t, out.PSPReference))
			require.NoError(t, p.Refund(ctx, cards.Modification{ID: "mod_" + ch.Reference + "_2", Payment: out.PSPReference, Amount: 500, Currency: "EUR"}))
			assert.Equal(t, "partially_refunded", e.status(t, out.PSPReference))
			err = p.Refund(ctx, cards.Modification{ID: "mod_" + ch.Reference + "_3", Payment: out.PSPReference, Amount: 999999, Currency: "EUR"})
			assert.True(t, apierr.HasCode(err, adyencheckout.CodeRequestRefused), "more than was captured: %v", err)
			assert.NotContains(t, err.Error(), e.Key)

			// Cancelled before capture.
			held, err := p.AuthoriseCard(ctx, e.charge(), testCard("5555555555554444"))
			require.NoError(t, err)
			require.NoError(t, p.Cancel(ctx, cards.Modification{ID: "mod_cancel_" + held.PSPReference, Payment: held.PSPReference, Amount: 2500, Currency: "EUR"}))
			assert.Equal(t, "cancelled", e.status(t, held.PSPReference))

			// Refused.
			refused, err := p.AuthoriseCard(ctx, e.charge(), testCard("4000000000000010"))
			require.NoError(t, err)
			assert.Equal(t, cards.Refused, refused.Result)
			assert.Equal(t, "Refused", refused.RefusalReason)
			assert.Equal(t, "2", refused.RefusalReasonCode)

			// The challenge card: fingerprint, then challenge, then authorised.
			ch = e.charge()
			first, err := p.AuthoriseCard(ctx, ch, testCard("5454545454545454"))
			require.NoError(t, err)
			require.Equal(t, cards.IdentifyShopper, first.Result)
			require.NotNil(t, first.Action)
			assert.Equal(t, "threeDS2", first.Action.Type)
			assert.Equal(t, "fingerprint", first.Action.Subtype)
			ch.Key += "/fingerprint"
			second, err := p.Continue(ctx, ch, cards.Step{Asked: first.Result, Flow: first.Flow, ThreeDSCompInd: "Y", PSPReference: first.PSPReference, Data: first.Data})
			require.NoError(t, err)
			require.Equal(t, cards.ChallengeShopper, second.Result)
			require.NotNil(t, second.Action)
			assert.Equal(t, "challenge", second.Action.Subtype)
			raw, err := base64.StdEncoding.DecodeString(second.Action.Token)
			require.NoError(t, err)
			var token map[string]string
			require.NoError(t, json.Unmarshal(raw, &token))
			assert.NotEmpty(t, token["acsURL"], "the challenge's token names the ACS: %s", raw)
			assert.Equal(t, "requires_action", e.status(t, first.PSPReference))
			ch.Key += "/challenge"
			done, err := p.Continue(ctx, ch, cards.Step{Asked: second.Result, Flow: second.Flow, TransStatus: "Y", PSPReference: second.PSPReference, Data: second.Data})
			require.NoError(t, err)
			assert.Equal(t, cards.Authorised, done.Result)
			assert.Equal(t, first.PSPReference, done.PSPReference)
			assert.Equal(t, "authorized", e.status(t, done.PSPReference))
		})
	}
	assert.Positive(t, e.calls.n.Load())
}

// TestAWrongKeyIsUnauthorized: the face refuses a key it does not know:
// connector_unauthorized, and the key is in no error.
func TestAWrongKeyIsUnauthorized(t *testing.T) {
	e := newFace(t)
	p, err := adyencheckout.New(adyencheckout.Config{Account: "acct_gateway", URL: e.URL + "/v2", MerchantAccount: e.Account.MerchantAccount,
		APIKey: "sk_test_not_a_key_at_all_0000000000", Client: &http.Client{Transport: e.calls}})
	require.NoError(t, err)
	_, err = p.AuthoriseCard(ctx, e.charge(), testCard("4111111111111111"))
	assert.True(t, apierr.HasCode(err, adyencheckout.CodeUnauthorized), "%v", err)
	assert.NotContains(t, err.Error(), "sk_test_not_a_key_at_all")
}

// TestStoredCardsAndWalletsAgainstTheV2Face: a card the face saved (a
// payment with storePaymentMethod) is charged through the connector with
// the shopper present and off session (ContAuth); a wallet token goes as
// the face takes it; a network token without its cryptogram goes as a card
// without a CVC, which the face's sandbox refuses.
func TestStoredCardsAndWalletsAgainstTheV2Face(t *testing.T) {
	e := newFace(t)
	r := e.Do("POST", "/v2/payments", map[string]any{"merchantAccount": e.Account.MerchantAccount,
		"amount": map[string]any{"value": 100, "currency": "EUR"}, "reference": "save-1", "returnUrl": "https://gateway.example.com/return",
		"shopperReference": "shopper-gw-1", "storePaymentMethod": true, "recurringProcessingModel": "UnscheduledCardOnFile",
		"paymentMethod": map[string]any{"type": "scheme", "number": "4111111111111111", "expiryMonth": "03", "expiryYear": "2030", "cvc": "737", "holderName": "J Smith"}},
		"Idempotency-Key", "save-1-"+t.Name())
	require.Equal(t, 200, r.Status, "%s", r.Body)
	var saved struct {
		AdditionalData map[string]string `json:"additionalData"`
	}
	r.JSON(t, &saved)
	spm := saved.AdditionalData["recurring.recurringDetailReference"]
	require.NotEmpty(t, spm, "%s", r.Body)

	p := e.connector(t, false)
	card := cards.SavedCard{Profile: cards.Profile(spm), Brand: "visa", Last4: "1111", ExpiryMonth: "03", ExpiryYear: "2030"}
	for _, offSession := range []bool{false, true} {
		ch := e.charge()
		ch.ShopperReference = "shopper-gw-1"
		out, err := p.AuthoriseStored(ctx, ch, card, offSession)
		require.NoError(t, err, "off session %v", offSession)
		assert.Equal(t, cards.Authorised, out.Result)
		assert.Equal(t, "authorized", e.status(t, out.PSPReference))
	}
	ch := e.charge()
	ch.ShopperReference = "someone-else"
	_, err := p.AuthoriseStored(ctx, ch, card, true)
	assert.True(t, apierr.HasCode(err, adyencheckout.CodeRequestRefused), "another shopper's card: %v", err)

	out, err := p.AuthoriseWallet(ctx, e.charge(), cards.ApplePay, "test_applepay_authorised")
	require.NoError(t, err)
	assert.Equal(t, cards.Authorised, out.Result)
	out, err = p.AuthoriseWallet(ctx, e.charge(), cards.GooglePay, "test_googlepay_refused")
	require.NoError(t, err)
	assert.Equal(t, cards.Refused, out.Result)

	// The face's sandbox asks every card for its CVC, which a network
	// token has none of: its 400 comes back as the provider's refusal.
	_, err = p.AuthoriseNetworkToken(ctx, e.charge(), testCard("4111111111111111"), false)
	assert.True(t, apierr.HasCode(err, adyencheckout.CodeRequestRefused), "%v", err)
	assert.Contains(t, apierr.As(err).Message, "security code")
}

// TestSavingACardThroughTheConnector: a charge whose shopper asked to save
// the card has the face save it too; the outcome's Profile is the face's
// storedPaymentMethodId, which charges the card later, off session.
func TestSavingACardThroughTheConnector(t *testing.T) {
	e := newFace(t)
	p := e.connector(t, false)
	ch := e.charge()
	ch.ShopperReference, ch.StoreCard = "shopper-saves", true
	out, err := p.AuthoriseCard(ctx, ch, testCard("4111111111111111"))
	require.NoError(t, err)
	require.Equal(t, cards.Authorised, out.Result)
	require.NotEmpty(t, out.Profile, "the face's stored payment method id")

	later := e.charge()
	later.ShopperReference = "shopper-saves"
	again, err := p.AuthoriseStored(ctx, later, cards.SavedCard{Profile: out.Profile, Brand: out.Brand, Last4: out.Last4,
		ExpiryMonth: "03", ExpiryYear: "2030"}, true)
	require.NoError(t, err)
	assert.Equal(t, cards.Authorised, again.Result)

	plain := e.charge()
	plain.ShopperReference = "shopper-saves"
	out, err = p.AuthoriseCard(ctx, plain, testCard("5555555555554444"))
	require.NoError(t, err)
	assert.Empty(t, out.Profile, "a charge that saves nothing asks for no stored method")
}

package walletpay

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/json"
	"encoding/pem"
	"io"
	"maps"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/pay/walletpay/applepay"
	"github.com/paygate/paygate/shared/pay/walletpay/googlepay"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/sandbox/paytokens"
)

// TestApplePayDecodeAndPay: a sandbox token decodes to what the merchant may
// see (never the number or cryptogram); decoded again it is the same token;
// it pays once, for the amount the shopper approved.
func TestApplePayDecodeAndPay(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		tok := e.appleToken("4111111111111111", 2500, "EUR")
		r := e.post("/v1/applepay/decode", map[string]any{"token": tok})
		require.Equal(t, 201, r.Status, "%s", r.Body)
		v := r.Map(t)
		id := v["payment_token_id"].(string)
		assert.Regexp(t, `^ptok_[0-9a-f]{32}$`, id)
		assert.Equal(t, "applepay", v["type"])
		assert.Equal(t, "visa", v["brand"])
		assert.Equal(t, "1111", v["last4"])
		assert.Equal(t, float64(12), v["expiry_month"])
		assert.Equal(t, float64(2030), v["expiry_year"])
		assert.Equal(t, map[string]any{"value": float64(2500), "currency": "EUR"}, v["amount"])
		assert.Equal(t, true, v["cryptogram_present"])
		assert.Equal(t, false, v["used"])
		assert.NotContains(t, string(r.Body), "4111111111111111")

		again := e.post("/v1/applepay/decode", map[string]any{"token": tok})
		require.Equal(t, 200, again.Status, "%s", again.Body)
		assert.Equal(t, id, again.Map(t)["payment_token_id"], "the same Apple Pay transaction is the same token")

		p := e.pay(id, 2499, "EUR")
		require.Equal(t, 400, p.Status, "%s", p.Body)
		code, _, _ := errOf(t, p)
		assert.Equal(t, "amount_mismatch", code)

		p = e.pay(id, 2500, "EUR")
		require.Equal(t, 201, p.Status, "%s", p.Body)
		tx := p.Map(t)
		assert.Equal(t, "charged", tx["status"])
		assert.Equal(t, "applepay", tx["payment_method"])

		p = e.pay(id, 2500, "EUR")
		require.Equal(t, 409, p.Status, "%s", p.Body)
		code, _, _ = errOf(t, p)
		assert.Equal(t, "payment_token_used", code)

		// Decoding the same transaction after it paid says so.
		again = e.post("/v1/applepay/decode", map[string]any{"token": tok})
		require.Equal(t, 200, again.Status, "%s", again.Body)
		assert.Equal(t, true, again.Map(t)["used"])
		assert.Equal(t, tx["id"], again.Map(t)["transaction_id"])

		got := e.Do("GET", "/v1/transactions/"+tx["id"].(string), nil)
		require.Equal(t, 200, got.Status)
	})
}

// TestApplePayTokenReplayedConcurrently: the same Apple Pay transaction
// decoded and paid from many requests at once is one token and one payment.
func TestApplePayTokenReplayedConcurrently(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		tok := e.appleToken("5555555555554444", 1000, "USD")
		var wg sync.WaitGroup
		var mu sync.Mutex
		ids, statuses := map[string]bool{}, map[int]int{}
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := e.post("/v1/applepay/decode", map[string]any{"token": tok})
				mu.Lock()
				defer mu.Unlock()
				statuses[r.Status]++
				if r.Status < 300 {
					ids[r.Map(t)["payment_token_id"].(string)] = true
				}
			}()
		}
		wg.Wait()
		assert.Equal(t, 1, statuses[201], "one decode creates the token: %v", statuses)
		assert.Equal(t, 7, statuses[200])
		require.Len(t, ids, 1)
		var id string
		for k := range ids {
			id = k
		}
		paid := atomic.Int64{}
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if r := e.pay(id, 1000, "USD"); r.Status == 201 {
					paid.Add(1)
				} else {
					assert.Equal(t, 409, r.Status, "%s", r.Body)
				}
			}()
		}
		wg.Wait()
		assert.Equal(t, int64(1), paid.Load(), "one payment")
	})
}

// TestApplePayDecodeRefusals: a chain that does not verify, a token signed
// an hour ago, a changed token, another version or garbage: 400 saying which
// check failed, and nothing stored.
func TestApplePayDecodeRefusals(t *testing.T) {
	e := newEnv(t, embedded, options{})
	good := e.appleToken("4111111111111111", 1000, "EUR")
	foreign, err := paytokens.AppleToken(foreignSigner(t), paytokens.AppleCard{Number: "4111111111111111",
		Expiry: time.Date(2030, 12, 31, 0, 0, 0, 0, time.UTC), Amount: 1000, CurrencyCode: "978", Cryptogram: "AgAAAAAABk4DWZ4C28yUQAAAAAA="})
	require.NoError(t, err)
	var pd map[string]any
	require.NoError(t, json.Unmarshal([]byte(good), &pd))
	pd["data"] = "A" + pd["data"].(string)[1:]
	changed, _ := json.Marshal(pd)
	cases := []struct {
		name, token, want string
	}{
		{"chain of another root", foreign, string(applepay.BadSignature)},
		{"changed data", string(changed), string(applepay.BadSignature)},
		{"RSA_v1", `{"version":"RSA_v1","data":"x","signature":"x","header":{}}`, string(applepay.Unsupported)},
		{"not a token", "hello", string(applepay.Malformed)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.post("/v1/applepay/decode", map[string]any{"token": c.token})
			require.Equal(t, 400, r.Status, "%s", r.Body)
			code, param, msg := errOf(t, r)
			assert.Equal(t, "applepay_token_invalid", code)
			assert.Equal(t, "token", param)
			assert.Equal(t, c.want, msg)
		})
	}
	// Signed an hour ago (the server's clock an hour on).
	e.Clock.Set(time.Now().Add(time.Hour))
	r := e.post("/v1/applepay/decode", map[string]any{"token": good})
	require.Equal(t, 400, r.Status, "%s", r.Body)
	_, _, msg := errOf(t, r)
	assert.Equal(t, string(applepay.Stale), msg)
	e.Clock.Set(time.Time{})

	r = e.post("/v1/applepay/decode", map[string]any{})
	require.Equal(t, 400, r.Status)
	r = e.post("/v1/applepay/decode", map[string]any{"token": strings.Repeat("a", MaxToken+1)})
	require.Equal(t, 400, r.Status, "%s", r.Body)
	page, err := e.Deps.Store.Query(context.Background(), storeQuery(e.Account.ID))
	require.NoError(t, err)
	assert.Empty(t, page.Items, "no token stored")
}

// TestGooglePayDecodeAndPay: a sandbox token decodes (no amount: Google's
// tokens carry none), is the same token when decoded again, pays once; with
// a cryptogram a 3-D Secure card needs no authentication, PAN_ONLY does.
func TestGooglePayDecodeAndPay(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		tok := e.googleToken("5454545454545454", true)
		r := e.post("/v1/googlepay/decode", map[string]any{"token": tok})
		require.Equal(t, 201, r.Status, "%s", r.Body)
		v := r.Map(t)
		assert.Equal(t, "googlepay", v["type"])
		assert.Equal(t, "mc", v["brand"])
		assert.Equal(t, "5454", v["last4"])
		assert.Nil(t, v["amount"])
		assert.Equal(t, true, v["cryptogram_present"])
		id := v["payment_token_id"].(string)
		again := e.post("/v1/googlepay/decode", map[string]any{"token": tok})
		require.Equal(t, 200, again.Status)
		assert.Equal(t, id, again.Map(t)["payment_token_id"])

		p := e.pay(id, 777, "KZT")
		require.Equal(t, 201, p.Status, "%s", p.Body)
		assert.Equal(t, "charged", p.Map(t)["status"], "the cryptogram authenticated the shopper")
		assert.Equal(t, 409, e.pay(id, 777, "KZT").Status)

		pan := e.post("/v1/googlepay/decode", map[string]any{"token": e.googleToken("5454545454545454", false)})
		require.Equal(t, 201, pan.Status, "%s", pan.Body)
		assert.Equal(t, false, pan.Map(t)["cryptogram_present"])
		p = e.pay(pan.Map(t)["payment_token_id"].(string), 100, "EUR")
		require.Equal(t, 201, p.Status, "%s", p.Body)
		assert.Equal(t, "requires_action", p.Map(t)["status"], "PAN_ONLY: 3-D Secure")
	})
}

// TestGooglePayDecodeRefusals: a token made for another account, an
// expired one, a changed one, ECv1, garbage: 400.
func TestGooglePayDecodeRefusals(t *testing.T) {
	e := newEnv(t, embedded, options{})
	tok := e.googleToken("4111111111111111", true)
	_, otherKey := e.NewAccount(accounts.Test)
	r := e.DoKey(otherKey, "POST", "/v1/googlepay/decode", map[string]any{"token": tok})
	require.Equal(t, 400, r.Status, "%s", r.Body)
	code, _, msg := errOf(t, r)
	assert.Equal(t, "googlepay_token_invalid", code)
	assert.Contains(t, msg, "another merchant")

	var tm map[string]any
	require.NoError(t, json.Unmarshal([]byte(tok), &tm))
	tm["signedMessage"] = tm["signedMessage"].(string) + " "
	changed, _ := json.Marshal(tm)
	for _, c := range []struct{ token, want string }{
		{string(changed), string(googlepay.BadSignature)},
		{`{"protocolVersion":"ECv1","signature":"x","signedMessage":"y"}`, string(googlepay.Unsupported)},
		{"garbage", string(googlepay.Malformed)},
	} {
		r := e.post("/v1/googlepay/decode", map[string]any{"token": c.token})
		require.Equal(t, 400, r.Status, "%s", r.Body)
		_, _, msg := errOf(t, r)
		assert.Equal(t, c.want, msg)
	}
	e.Clock.Set(time.Now().Add(2 * time.Hour))
	r = e.post("/v1/googlepay/decode", map[string]any{"token": tok})
	require.Equal(t, 400, r.Status, "%s", r.Body)
	_, _, msg = errOf(t, r)
	assert.Equal(t, string(googlepay.Expired), msg)
}

// TestSessionsTestMode: a sandbox Apple Pay session (nothing sent), and the
// Google Pay request parts with the account as gatewayMerchantId; the
// session routes' bad input.
func TestSessionsTestMode(t *testing.T) {
	e := newEnv(t, embedded, options{})
	r := e.Do("POST", "/v1/applepay/sessions", map[string]any{"validation_url": "https://apple-pay-gateway-cert.apple.com/paymentservices/paymentSession",
		"domain_name": "shop.example.com", "display_name": "Shop"})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	var s struct {
		MerchantSession map[string]any `json:"merchant_session"`
		Livemode        bool           `json:"livemode"`
	}
	r.JSON(t, &s)
	assert.False(t, s.Livemode)
	assert.Equal(t, "shop.example.com", s.MerchantSession["domainName"])
	assert.Equal(t, "Shop", s.MerchantSession["displayName"])
	assert.NotEmpty(t, s.MerchantSession["merchantSessionIdentifier"])

	for name, c := range map[string]struct {
		body        map[string]any
		code, param string
	}{
		"another host": {map[string]any{"validation_url": "https://evil.example/paymentservices/startSession", "domain_name": "shop.example.com", "display_name": "Shop"}, "validation_url_not_allowed", "validation_url"},
		"a redirector": {map[string]any{"validation_url": "https://redirect.example/?to=https://apple-pay-gateway.apple.com/paymentservices/startSession", "domain_name": "shop.example.com", "display_name": "Shop"}, "validation_url_not_allowed", "validation_url"},
		"http":         {map[string]any{"validation_url": "http://apple-pay-gateway.apple.com/paymentservices/startSession", "domain_name": "shop.example.com", "display_name": "Shop"}, "validation_url_not_allowed", "validation_url"},
		"domain":       {map[string]any{"validation_url": "https://apple-pay-gateway.apple.com/paymentservices/startSession", "domain_name": "not a domain", "display_name": "Shop"}, "parameter_invalid", "domain_name"},
		"display name": {map[string]any{"validation_url": "https://apple-pay-gateway.apple.com/paymentservices/startSession", "domain_name": "shop.example.com", "display_name": strings.Repeat("x", 65)}, "parameter_invalid", "display_name"},
		"missing":      {map[string]any{"domain_name": "shop.example.com", "display_name": "Shop"}, "parameter_missing", "validation_url"},
	} {
		r := e.Do("POST", "/v1/applepay/sessions", c.body)
		require.Equal(t, 400, r.Status, "%s: %s", name, r.Body)
		code, param, _ := errOf(t, r)
		assert.Equal(t, c.code, code, name)
		assert.Equal(t, c.param, param, name)
	}

	r = e.Do("POST", "/v1/googlepay/sessions", map[string]any{"merchant_name": "Shop", "amount": map[string]any{"value": 1000, "currency": "EUR"}, "country_code": "KZ"})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	var g struct {
		Environment string         `json:"environment"`
		PDR         map[string]any `json:"payment_data_request"`
	}
	r.JSON(t, &g)
	assert.Equal(t, "TEST", g.Environment)
	method := g.PDR["allowedPaymentMethods"].([]any)[0].(map[string]any)
	params := method["tokenizationSpecification"].(map[string]any)["parameters"].(map[string]any)
	assert.Equal(t, map[string]any{"gateway": "paygate", "gatewayMerchantId": e.Account.ID}, params)
	assert.Equal(t, map[string]any{"totalPriceStatus": "FINAL", "totalPrice": "10.00", "currencyCode": "EUR", "countryCode": "KZ"}, g.PDR["transactionInfo"])
	r = e.Do("POST", "/v1/googlepay/sessions", nil)
	require.Equal(t, 200, r.Status, "no body is fine: %s", r.Body)
	r = e.Do("POST", "/v1/googlepay/sessions", map[string]any{"amount": map[string]any{"value": 1, "currency": "XYZ"}})
	require.Equal(t, 400, r.Status)

	_, live := e.NewAccount(accounts.Live)
	for path, b := range map[string]any{
		"/v1/googlepay/sessions": map[string]any{},
		"/v1/applepay/sessions": map[string]any{"validation_url": "https://apple-pay-gateway.apple.com/paymentservices/startSession",
			"domain_name": "shop.example.com", "display_name": "Shop"},
		"/v1/applepay/decode": map[string]any{"token": e.appleToken("4111111111111111", 1000, "EUR")},
	} {
		r = e.DoKey(live, "POST", path, b)
		require.Equal(t, 403, r.Status, "live mode is not configured here: %s: %s", path, r.Body)
	}
	r = e.DoKey(live, "POST", "/test-helpers/wallet-tokens/applepay", map[string]any{"amount": map[string]any{"value": 1, "currency": "EUR"}})
	assert.Equal(t, 403, r.Status, "test helpers take test keys only")
}

// fakeApple is a local TLS server standing in for Apple's gateway: every
// connection the gateway client opens comes here, whatever host it dialled.
type fakeApple struct {
	srv      *httptest.Server
	ca       *x509.Certificate
	requests atomic.Int64
	mu       sync.Mutex
	body     map[string]string
	handler  http.HandlerFunc
}

func newFakeApple(t *testing.T) *fakeApple {
	f := &fakeApple{}
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	f.ca = mkCert(t, &x509.Certificate{Subject: pkix.Name{CommonName: "test CA"}, IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}, nil, &caKey.PublicKey, caKey)
	srvKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	srvCert := mkCert(t, &x509.Certificate{Subject: pkix.Name{CommonName: "apple"}, DNSNames: applepay.GatewayHosts,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}, f.ca, &srvKey.PublicKey, caKey)
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.requests.Add(1)
		raw, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		_ = json.Unmarshal(raw, &f.body)
		h := f.handler
		f.mu.Unlock()
		if h != nil {
			h(w, r)
			return
		}
		_, _ = w.Write([]byte(`{"epochTimestamp":1700000000000,"merchantSessionIdentifier":"SSHLIVE","domainName":"shop.example.com","signature":"abc"}`))
	}))
	f.srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert, Certificates: []tls.Certificate{{Certificate: [][]byte{srvCert.Raw}, PrivateKey: srvKey}}}
	f.srv.StartTLS()
	t.Cleanup(f.srv.Close)
	return f
}

func mkCert(t *testing.T, tmpl, parent *x509.Certificate, pub, signer any) *x509.Certificate {
	t.Helper()
	tmpl.SerialNumber = big.NewInt(time.Now().UnixNano())
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	if parent == nil {
		parent = tmpl
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
	require.NoError(t, err)
	c, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return c
}

// liveSecrets is a live configuration as the SecureString holds it: a
// merchant identity certificate, the sandbox's processing key (standing in
// for the platform's), the sandbox's Google recipient key.
func liveSecrets(t *testing.T) string {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	c := mkCert(t, &x509.Certificate{Subject: pkix.Name{CommonName: "Merchant ID", ExtraNames: []pkix.AttributeTypeAndValue{
		{Type: asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 1}, Value: "merchant.test.paygate"}}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}, nil, &k.PublicKey, k)
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	procCert, procKey, gkey := paytokens.PEM("applepay-processing.pem"), paytokens.PEM("applepay-processing-key.pem"), paytokens.PEM("googlepay-recipient-key.pem")
	s := map[string]any{
		"apple_merchant_identity": map[string]string{"certificate": string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})),
			"private_key": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))},
		"apple_processing":      []map[string]string{{"certificate": procCert, "private_key": procKey}},
		"google_merchant_id":    "BCR2DN4TEST",
		"google_recipient_keys": []string{gkey},
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// TestLiveMode: with a live configuration, an Apple Pay session is asked of
// "Apple" (the local TLS server) with the merchant identity certificate;
// another host is refused with no request sent; Apple's redirect is not
// followed; a sandbox token is refused (Apple's root, Google's keys); the
// Google request says PRODUCTION with the merchant id.
func TestLiveMode(t *testing.T) {
	f := newFakeApple(t)
	roots := x509.NewCertPool()
	roots.AddCert(f.ca)
	addr := f.srv.Listener.Addr().String()
	gw := &applepay.GatewayOptions{RootCAs: roots, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	secrets := liveSecrets(t)
	var reads atomic.Int64
	live := Refreshing(func(context.Context) (string, error) { reads.Add(1); return secrets, nil }, gw, nil)
	e := newEnv(t, embedded, options{live: live, googleRoots: []googlepay.RootKey{{KeyValue: "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE/1+3HBVSbdv+j7NaArdgMyoSAM43yRydzqdg1TxodSzA96Dj4Mc1EiKroxxunavVIvdxGnJeFViTzFvzFRxyCw==", ProtocolVersion: "ECv2"}}})
	e.AllowServerErrors("Apple's gateway is made to answer a redirect, which is a 503 (not followed, retry later)")
	_, key := e.NewAccount(accounts.Live)
	body := map[string]any{"validation_url": "https://apple-pay-gateway.apple.com/paymentservices/startSession", "domain_name": "shop.example.com", "display_name": "Shop"}

	r := e.DoKey(key, "POST", "/v1/applepay/sessions", body)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	assert.Contains(t, string(r.Body), "SSHLIVE")
	assert.Equal(t, int64(1), f.requests.Load())
	f.mu.Lock()
	assert.Equal(t, map[string]string{"merchantIdentifier": "merchant.test.paygate", "displayName": "Shop", "initiative": "web", "initiativeContext": "shop.example.com"}, f.body)
	f.mu.Unlock()

	for _, u := range []string{"https://evil.example/paymentservices/startSession", "https://redirect.example/r?u=https://apple-pay-gateway.apple.com/paymentservices/startSession"} {
		bad := map[string]any{"validation_url": u, "domain_name": "shop.example.com", "display_name": "Shop"}
		r = e.DoKey(key, "POST", "/v1/applepay/sessions", bad)
		require.Equal(t, 400, r.Status, "%s", r.Body)
	}
	assert.Equal(t, int64(1), f.requests.Load(), "no request was sent for another host")

	f.mu.Lock()
	f.handler = func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://evil.example/", http.StatusTemporaryRedirect)
	}
	f.mu.Unlock()
	r = e.DoKey(key, "POST", "/v1/applepay/sessions", body)
	require.Equal(t, 503, r.Status, "%s", r.Body)
	assert.Equal(t, int64(2), f.requests.Load(), "the redirect was not followed")
	f.mu.Lock()
	f.handler = func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(400)
		_, _ = w.Write([]byte(`{"statusMessage":"Payment Services Exception merchantId=... domain not registered","statusCode":"400"}`))
	}
	f.mu.Unlock()
	r = e.DoKey(key, "POST", "/v1/applepay/sessions", body)
	require.Equal(t, 400, r.Status, "%s", r.Body)
	code, _, _ := errOf(t, r)
	assert.Equal(t, "apple_pay_session_refused", code)

	// A sandbox token in live mode: Apple's root does not sign it.
	tok := e.appleToken("4111111111111111", 1000, "EUR")
	r = e.DoKey(key, "POST", "/v1/applepay/decode", map[string]any{"token": tok})
	require.Equal(t, 400, r.Status, "%s", r.Body)
	_, _, msg := errOf(t, r)
	assert.Equal(t, string(applepay.BadSignature), msg)
	gtok := e.googleToken("4111111111111111", true)
	r = e.DoKey(key, "POST", "/v1/googlepay/decode", map[string]any{"token": gtok})
	require.Equal(t, 400, r.Status, "%s", r.Body)

	r = e.DoKey(key, "POST", "/v1/googlepay/sessions", map[string]any{})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	assert.Equal(t, "PRODUCTION", r.Map(t)["environment"])
	assert.Contains(t, string(r.Body), `"merchantId":"BCR2DN4TEST"`)
	assert.Equal(t, int64(1), reads.Load(), "the secret is read once, then kept")
}

// foreignSigner is a signing chain with Apple's markers under a root
// nobody trusts.
func foreignSigner(t *testing.T) paytokens.AppleSigner {
	null, _ := asn1.Marshal(asn1.NullRawValue)
	rootKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	root := mkCert(t, &x509.Certificate{Subject: pkix.Name{CommonName: "Root"}, IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}, nil, &rootKey.PublicKey, rootKey)
	interKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	inter := mkCert(t, &x509.Certificate{Subject: pkix.Name{CommonName: "Inter"}, IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
		ExtraExtensions: []pkix.Extension{{Id: asn1.ObjectIdentifier{1, 2, 840, 113635, 100, 6, 2, 14}, Value: null}}}, root, &interKey.PublicKey, rootKey)
	leafKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf := mkCert(t, &x509.Certificate{Subject: pkix.Name{CommonName: "Leaf"}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtraExtensions: []pkix.Extension{{Id: asn1.ObjectIdentifier{1, 2, 840, 113635, 100, 6, 29}, Value: null}}}, inter, &leafKey.PublicKey, interKey)
	return paytokens.AppleSigner{Leaf: leaf, Intermediate: inter, Key: leafKey}
}

// TestApplePayTransactionClaimedOnce: an Apple Pay token is sealed to the
// platform's processing key, not to an account, so two accounts can hold
// the same one. Whichever decodes it first owns the transaction; the other
// gets a 409 (naming neither the account nor its token) and no token, so
// the shopper's transaction pays once across the platform. Racing decodes
// from two accounts: one token.
func TestApplePayTransactionClaimedOnce(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		other, otherKey := e.NewAccount(accounts.Test)
		tok := e.appleToken("4111111111111111", 1000, "EUR")
		r := e.post("/v1/applepay/decode", map[string]any{"token": tok})
		require.Equal(t, 201, r.Status, "%s", r.Body)
		id := r.Map(t)["payment_token_id"].(string)

		r = e.DoKey(otherKey, "POST", "/v1/applepay/decode", map[string]any{"token": tok}, "Idempotency-Key", e.key())
		require.Equal(t, 409, r.Status, "%s", r.Body)
		code, param, msg := errOf(t, r)
		assert.Equal(t, "wallet_transaction_claimed", code)
		assert.Equal(t, "token", param)
		assert.NotContains(t, msg, e.Account.ID)
		assert.NotContains(t, msg, id)
		page, err := e.Deps.Store.Query(context.Background(), storeQuery(other.ID))
		require.NoError(t, err)
		assert.Empty(t, page.Items, "no token for the other account")

		r = e.post("/v1/applepay/decode", map[string]any{"token": tok})
		require.Equal(t, 200, r.Status, "the first account's decode again: %s", r.Body)
		assert.Equal(t, id, r.Map(t)["payment_token_id"])

		// Both accounts at once, a fresh transaction: one 201, one 409.
		tok = e.appleToken("5555555555554444", 1000, "EUR")
		var wg sync.WaitGroup
		statuses := make([]int, 2)
		for i, key := range []string{e.Key, otherKey} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = e.DoKey(key, "POST", "/v1/applepay/decode", map[string]any{"token": tok}, "Idempotency-Key", e.key()).Status
			}()
		}
		wg.Wait()
		assert.ElementsMatch(t, []int{201, 409}, statuses)
	})
}

// TestOptionalFieldsSentBlank: an optional field is left out, not sent
// blank: a sandbox token's number or a Google Pay session's country_code
// sent empty is a 400 naming it (schemathesis found both answered as if
// absent).
func TestOptionalFieldsSentBlank(t *testing.T) {
	e := newEnv(t, embedded, options{})
	amount := map[string]any{"value": 1000, "currency": "EUR"}
	for _, c := range []struct {
		path, param string
		base        map[string]any
	}{
		{"/test-helpers/wallet-tokens/applepay", "number", map[string]any{"amount": amount}},
		{"/test-helpers/wallet-tokens/googlepay", "number", map[string]any{}},
		{"/v1/googlepay/sessions", "country_code", map[string]any{"amount": amount}},
	} {
		with := func(v any) map[string]any {
			b := maps.Clone(c.base)
			b[c.param] = v
			return b
		}
		r := e.Do("POST", c.path, with(""))
		require.Equal(t, 400, r.Status, "%s: %s", c.path, r.Body)
		_, param, _ := errOf(t, r)
		assert.Equal(t, c.param, param, c.path)
		r = e.Do("POST", c.path, with(nil))
		assert.Equal(t, 400, r.Status, "%s with null: %s", c.path, r.Body)
		r = e.Do("POST", c.path, c.base)
		assert.Less(t, r.Status, 300, "%s left out: %s", c.path, r.Body)
	}
}

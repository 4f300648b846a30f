package applepay_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/pay/walletpay/applepay"
)

func TestCheckValidationURL(t *testing.T) {
	ok := []string{
		"https://apple-pay-gateway.apple.com/paymentservices/startSession",
		"https://apple-pay-gateway-cert.apple.com/paymentservices/paymentSession",
		"https://cn-apple-pay-gateway.apple.com/paymentservices/startSession",
		"https://apple-pay-gateway-nc-pod5.apple.com:443/paymentservices/startSession",
	}
	for _, u := range ok {
		_, err := applepay.CheckValidationURL(u)
		assert.NoError(t, err, u)
	}
	bad := []string{
		"http://apple-pay-gateway.apple.com/paymentservices/startSession",
		"https://apple-pay-gateway.apple.com.evil.example/paymentservices/startSession",
		"https://evil.example/paymentservices/startSession?to=https://apple-pay-gateway.apple.com",
		"https://apple-pay-gateway.apple.com@evil.example/paymentservices/startSession",
		"https://user@apple-pay-gateway.apple.com/paymentservices/startSession",
		"https://apple-pay-gateway.apple.com:8443/paymentservices/startSession",
		"https://apple.com/paymentservices/startSession",
		"https://127.0.0.1/paymentservices/startSession",
		"https://apple-pay-gateway.apple.com/redirect?to=https://evil.example",
		"https://apple-pay-gateway.apple.com/paymentservices/../admin",
		"https://APPLE-PAY-GATEWAY.apple.com/paymentservices/startSession",
		"https://apple-pay-gateway.apple.com./paymentservices/startSession",
		"//apple-pay-gateway.apple.com/paymentservices/startSession",
		"",
	}
	for _, u := range bad {
		_, err := applepay.CheckValidationURL(u)
		assert.ErrorIs(t, err, applepay.ErrHostNotAllowed, u)
	}
}

// fakeApple is a local TLS server standing in for Apple's gateway: it
// answers for every host name (the test's dialer sends every connection
// here), requires a client certificate, and records what it received.
type fakeApple struct {
	srv      *httptest.Server
	requests atomic.Int64
	last     atomic.Value // map[string]string body
	clientCN atomic.Value
	handler  func(w http.ResponseWriter, r *http.Request)
	ca       *x509.Certificate
}

func newFakeApple(t *testing.T) *fakeApple {
	t.Helper()
	f := &fakeApple{}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.requests.Add(1)
		if len(r.TLS.PeerCertificates) > 0 {
			f.clientCN.Store(r.TLS.PeerCertificates[0].Subject.CommonName)
		}
		var body map[string]string
		raw, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(raw, &body)
		f.last.Store(body)
		if f.handler != nil {
			f.handler(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"epochTimestamp":1,"expiresAt":2,"merchantSessionIdentifier":"SSH1","nonce":"n","merchantIdentifier":"M","domainName":"shop.example.com","displayName":"Shop","signature":"s"}`))
	}))
	// A certificate for Apple's gateway host names, from a CA only the
	// test's client trusts: the client checks the host name as it would
	// Apple's.
	caKey := ecKey(t)
	f.ca = newCert(t, &x509.Certificate{Subject: pkix.Name{CommonName: "test CA"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}, nil, &caKey.PublicKey, caKey)
	srvKey := ecKey(t)
	srvCert := newCert(t, &x509.Certificate{Subject: pkix.Name{CommonName: "apple-pay-gateway-cert.apple.com"},
		DNSNames: applepay.GatewayHosts, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}},
		f.ca, &srvKey.PublicKey, caKey)
	f.srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert,
		Certificates: []tls.Certificate{{Certificate: [][]byte{srvCert.Raw}, PrivateKey: srvKey}}}
	f.srv.StartTLS()
	t.Cleanup(f.srv.Close)
	return f
}

// gateway is a gateway whose every connection goes to f (whatever host it
// dials), trusting f's CA.
func (f *fakeApple) gateway(t *testing.T, id applepay.Identity) *applepay.Gateway {
	roots := x509.NewCertPool()
	roots.AddCert(f.ca)
	addr := f.srv.Listener.Addr().String()
	return applepay.NewGateway(id, applepay.GatewayOptions{RootCAs: roots,
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		}})
}

func identity(t *testing.T) applepay.Identity {
	t.Helper()
	k := ecKey(t)
	c := newCert(t, &x509.Certificate{Subject: pkix.Name{CommonName: "Merchant ID: merchant.test.paygate",
		ExtraNames: []pkix.AttributeTypeAndValue{{Type: asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 1}, Value: "merchant.test.paygate"}}},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, nil, &k.PublicKey, k)
	der, err := x509.MarshalPKCS8PrivateKey(k)
	require.NoError(t, err)
	id, err := applepay.NewIdentity(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	require.NoError(t, err)
	assert.Equal(t, "merchant.test.paygate", id.MerchantIdentifier)
	return id
}

var req = applepay.SessionRequest{ValidationURL: "https://apple-pay-gateway-cert.apple.com/paymentservices/paymentSession",
	DomainName: "shop.example.com", DisplayName: "Shop"}

// TestSessionRequestShape: the session request is Apple's: a POST of
// merchantIdentifier, displayName, initiative web and initiativeContext,
// over TLS with the merchant identity certificate; Apple's answer is
// returned as it is.
func TestSessionRequestShape(t *testing.T) {
	f := newFakeApple(t)
	id := identity(t)
	got, err := f.gateway(t, id).Session(context.Background(), id, req)
	require.NoError(t, err)
	assert.JSONEq(t, `{"epochTimestamp":1,"expiresAt":2,"merchantSessionIdentifier":"SSH1","nonce":"n","merchantIdentifier":"M","domainName":"shop.example.com","displayName":"Shop","signature":"s"}`, string(got))
	assert.Equal(t, int64(1), f.requests.Load())
	assert.Equal(t, map[string]string{"merchantIdentifier": "merchant.test.paygate", "displayName": "Shop", "initiative": "web",
		"initiativeContext": "shop.example.com"}, f.last.Load())
	assert.Equal(t, "Merchant ID: merchant.test.paygate", f.clientCN.Load(), "the merchant identity certificate is presented")
}

// TestSessionRefusals: another host is refused before any request is sent
// (including one that would redirect to Apple); Apple's own redirect is not
// followed; Apple's 4xx is the merchant's SessionError; its 5xx another error.
func TestSessionRefusals(t *testing.T) {
	f := newFakeApple(t)
	id := identity(t)
	g := f.gateway(t, id)
	for _, u := range []string{"https://evil.example/paymentservices/startSession",
		"https://redirect.example/to?https://apple-pay-gateway.apple.com/paymentservices/startSession"} {
		r := req
		r.ValidationURL = u
		_, err := g.Session(context.Background(), id, r)
		assert.ErrorIs(t, err, applepay.ErrHostNotAllowed)
	}
	assert.Equal(t, int64(0), f.requests.Load(), "no request was sent")

	f.handler = func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://evil.example/steal", http.StatusFound)
	}
	_, err := g.Session(context.Background(), id, req)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "redirect")
	assert.Equal(t, int64(1), f.requests.Load(), "the redirect was not followed")

	f.handler = func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(400)
		_, _ = w.Write([]byte(`{"statusMessage":"Domain not registered","statusCode":"400"}`))
	}
	_, err = g.Session(context.Background(), id, req)
	var se *applepay.SessionError
	require.True(t, errors.As(err, &se), "%v", err)
	assert.Equal(t, "Domain not registered", se.Message)

	f.handler = func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }
	_, err = g.Session(context.Background(), id, req)
	require.Error(t, err)
	assert.False(t, errors.As(err, &se))
}

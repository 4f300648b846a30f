package googlepay_test

import (
	"context"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/pay/walletpay/googlepay"
	"github.com/paygate/paygate/shared/sandbox/paytokens"
)

func reason(t *testing.T, err error) googlepay.Reason {
	t.Helper()
	var e *googlepay.Error
	require.True(t, errors.As(err, &e), "%v", err)
	return e.Reason
}

// published is the opener of the published sample (testdata/NOTICE.md).
func published(t *testing.T) googlepay.Opener {
	t.Helper()
	var doc struct {
		Keys []googlepay.RootKey `json:"keys"`
	}
	raw, err := os.ReadFile("testdata/tink-root-keys.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &doc))
	b64, err := os.ReadFile("testdata/tink-recipient-key.b64")
	require.NoError(t, err)
	der, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b64)))
	require.NoError(t, err)
	k, err := x509.ParsePKCS8PrivateKey(der)
	require.NoError(t, err)
	dh, err := k.(*ecdsa.PrivateKey).ECDH()
	require.NoError(t, err)
	return googlepay.Opener{RootKeys: doc.Keys, RecipientID: "someRecipient", Keys: []*ecdh.PrivateKey{dh}}
}

func load(t *testing.T, name string) *googlepay.Token {
	t.Helper()
	raw, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	tok, err := googlepay.Parse(string(raw))
	require.NoError(t, err)
	return tok
}

// fixed is a time the published sample's intermediate key is valid at.
var fixed = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

// TestPublishedSample: a token made with tink's test keys and published with
// its expected plaintext opens; changed, for another recipient, with
// another key, or with its expired intermediate key, it does not.
func TestPublishedSample(t *testing.T) {
	o := published(t)
	m, err := o.Open(load(t, "tink-ecv2-token.json"), fixed)
	require.NoError(t, err)
	assert.Equal(t, "CARD", m.PaymentMethod)
	assert.Equal(t, "PAN_ONLY", m.PaymentMethodDetails.AuthMethod)
	assert.Equal(t, "1111", m.PaymentMethodDetails.PAN[12:])
	assert.Equal(t, 12, m.PaymentMethodDetails.ExpirationMonth)
	assert.Equal(t, 2026, m.PaymentMethodDetails.ExpirationYear)
	assert.True(t, strings.HasPrefix(m.MessageID, "AH2Ejtfk"))

	tok := load(t, "tink-ecv2-token.json")
	tok.SignedMessage += " "
	_, err = o.Open(tok, fixed)
	assert.Equal(t, googlepay.BadSignature, reason(t, err))

	other := o
	other.RecipientID = "gateway:paygate"
	_, err = other.Open(load(t, "tink-ecv2-token.json"), fixed)
	assert.Equal(t, googlepay.BadSignature, reason(t, err), "signed for another recipient")

	other = o
	other.RootKeys = paytokens.GoogleRootKeys()
	_, err = other.Open(load(t, "tink-ecv2-token.json"), fixed)
	assert.Equal(t, googlepay.BadSignature, reason(t, err), "a root we do not trust")

	other = o
	other.Keys = []*ecdh.PrivateKey{paytokens.GoogleRecipientKey()}
	_, err = other.Open(load(t, "tink-ecv2-token.json"), fixed)
	assert.Equal(t, googlepay.Undecryptable, reason(t, err), "another recipient key")

	_, err = o.Open(load(t, "tink-ecv2-expired-key-token.json"), fixed)
	assert.Equal(t, googlepay.KeyExpired, reason(t, err))
}

func sandboxOpener() googlepay.Opener {
	return googlepay.Opener{RootKeys: paytokens.GoogleRootKeys(), RecipientID: paytokens.GoogleRecipientID,
		Keys: []*ecdh.PrivateKey{paytokens.GoogleRecipientKey()}}
}

// TestSandboxTokens: the sandbox's tokens open; an expired message, a
// tampered tag or message, and ECv1 are refused.
func TestSandboxTokens(t *testing.T) {
	now := time.Now()
	s, err := paytokens.GoogleToken(paytokens.GoogleCard{Number: "4111111111111111", ExpiryMonth: 12, ExpiryYear: 2030,
		Cryptogram: "AgAAAAAABk4DWZ4C28yUQAAAAAA=", GatewayMerchantID: "acct-1"}, now)
	require.NoError(t, err)
	tok, err := googlepay.Parse(s)
	require.NoError(t, err)
	m, err := sandboxOpener().Open(tok, now)
	require.NoError(t, err)
	assert.Equal(t, "CRYPTOGRAM_3DS", m.PaymentMethodDetails.AuthMethod)
	assert.Equal(t, "acct-1", m.GatewayMerchantID)
	assert.NotEmpty(t, m.PaymentMethodDetails.Cryptogram)

	_, err = sandboxOpener().Open(tok, now.Add(2*time.Hour))
	assert.Equal(t, googlepay.Expired, reason(t, err))

	// A tag that does not match the ciphertext: the message's signature
	// covers it, so the signature fails first; re-signed by a root holder
	// (the sandbox), the tag check itself refuses.
	var sm map[string]string
	require.NoError(t, json.Unmarshal([]byte(tok.SignedMessage), &sm))
	sm["tag"] = base64.StdEncoding.EncodeToString(make([]byte, 32))
	b, _ := json.Marshal(sm)
	bad := *tok
	bad.SignedMessage = string(b)
	_, err = sandboxOpener().Open(&bad, now)
	assert.Equal(t, googlepay.BadSignature, reason(t, err))

	_, err = googlepay.Parse(`{"protocolVersion":"ECv1","signature":"x","signedMessage":"y"}`)
	assert.Equal(t, googlepay.Unsupported, reason(t, err))
	_, err = googlepay.Parse(`not json`)
	assert.Equal(t, googlepay.Malformed, reason(t, err))
	_, err = googlepay.Parse(base64.StdEncoding.EncodeToString([]byte(s)))
	assert.NoError(t, err, "base64 of the token too")
}

// TestRootKeysFetch: Google's keys are fetched once per max-age, and a
// failed refresh keeps the keys it had.
func TestRootKeysFetch(t *testing.T) {
	var calls atomic.Int64
	fail := atomic.Bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if fail.Load() {
			w.WriteHeader(500)
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=7200")
		_, _ = w.Write([]byte(`{"keys":[{"keyValue":"AAA","protocolVersion":"ECv2","keyExpiration":"32506264800000"}]}`))
	}))
	defer srv.Close()
	now := time.Now()
	r := &googlepay.RootKeys{URL: srv.URL, Clock: func() time.Time { return now }}
	keys, err := r.Get(context.Background())
	require.NoError(t, err)
	require.Len(t, keys, 1)
	_, _ = r.Get(context.Background())
	assert.Equal(t, int64(1), calls.Load(), "cached for max-age")
	now = now.Add(3 * time.Hour)
	fail.Store(true)
	keys, err = r.Get(context.Background())
	require.NoError(t, err, "a failed refresh keeps the keys")
	assert.Len(t, keys, 1)
	assert.Equal(t, int64(2), calls.Load())
	_, err = (&googlepay.RootKeys{URL: srv.URL}).Get(context.Background())
	assert.Error(t, err, "no keys at all: an error")
}

func TestCardFor(t *testing.T) {
	c := googlepay.CardFor("acct-1")
	b, _ := json.Marshal(c)
	assert.JSONEq(t, `{"type":"CARD","parameters":{"allowedAuthMethods":["PAN_ONLY","CRYPTOGRAM_3DS"],"allowedCardNetworks":["AMEX","MASTERCARD","VISA"],"billingAddressRequired":false},
		"tokenizationSpecification":{"type":"PAYMENT_GATEWAY","parameters":{"gateway":"paygate","gatewayMerchantId":"acct-1"}}}`, string(b))
}

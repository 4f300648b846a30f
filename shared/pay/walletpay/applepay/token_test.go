package applepay_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/pay/walletpay/applepay"
	"github.com/paygate/paygate/shared/sandbox/paytokens"
)

func reason(t *testing.T, err error) applepay.Reason {
	t.Helper()
	var e *applepay.Error
	require.True(t, errors.As(err, &e), "%v", err)
	return e.Reason
}

func sandboxOpener(t *testing.T) applepay.Opener {
	t.Helper()
	roots, err := applepay.Roots(paytokens.AppleRootPEM())
	require.NoError(t, err)
	return applepay.Opener{Roots: roots, Keys: []applepay.ProcessingKey{paytokens.AppleProcessingKey()}}
}

func card() paytokens.AppleCard {
	return paytokens.AppleCard{Number: "4111111111111111", Expiry: time.Date(2030, 12, 31, 0, 0, 0, 0, time.UTC),
		Amount: 1000, CurrencyCode: "978", Cryptogram: "AgAAAAAABk4DWZ4C28yUQAAAAAA="}
}

// TestRootG3 is Apple's published root: its SHA-256 fingerprint is the one
// Apple publishes.
func TestRootG3(t *testing.T) {
	b, _ := pem.Decode([]byte(applepay.RootG3))
	require.NotNil(t, b)
	sum := sha256.Sum256(b.Bytes)
	assert.Equal(t, "63343ABFB89A6A03EBB57E9B3F5FA7BE7C4F5C756F3017B3A8C488C3653E9179", strings.ToUpper(hex.EncodeToString(sum[:])))
}

// TestPublishedSample: a token Apple's production chain signed (spreedly/
// gala's fixture, testdata/NOTICE.md) verifies against Apple Root CA - G3
// at its signing time and decrypts with its processing key; read now it is
// stale, and against the sandbox root its chain does not verify.
func TestPublishedSample(t *testing.T) {
	raw, err := os.ReadFile("testdata/gala-token.json")
	require.NoError(t, err)
	key := loadGalaKey(t)
	pd, err := applepay.Parse(string(raw))
	require.NoError(t, err)
	apple, err := applepay.Roots(applepay.RootG3)
	require.NoError(t, err)
	signed := time.Date(2021, 9, 1, 19, 3, 6, 0, time.UTC)

	d, err := applepay.Opener{Roots: apple, Keys: []applepay.ProcessingKey{key}}.Open(pd, signed.Add(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, signed, d.SigningTime.UTC())
	assert.Equal(t, "1169", d.ApplicationPrimaryAccountNumber[12:])
	assert.Len(t, d.ApplicationPrimaryAccountNumber, 16)
	month, year, ok := d.ExpiryMonthYear()
	assert.True(t, ok)
	assert.Equal(t, 9, month)
	assert.Equal(t, 2024, year)
	assert.Equal(t, "840", d.CurrencyCode)
	assert.Equal(t, int64(100), d.TransactionAmount)
	assert.Equal(t, "3DSecure", d.PaymentDataType)
	assert.Equal(t, "AMwBRjPWDnAgAA7Rls7mAoABFA==", d.PaymentData.OnlinePaymentCryptogram)

	// As base64 too, and as a whole PKPaymentToken.
	pd2, err := applepay.Parse(base64.StdEncoding.EncodeToString(raw))
	require.NoError(t, err)
	assert.Equal(t, pd, pd2)
	wrapped, _ := json.Marshal(map[string]any{"paymentData": json.RawMessage(raw), "transactionIdentifier": "X"})
	pd3, err := applepay.Parse(string(wrapped))
	require.NoError(t, err)
	assert.Equal(t, pd, pd3)

	_, err = applepay.Opener{Roots: apple, Keys: []applepay.ProcessingKey{key}}.Open(pd, time.Now())
	assert.Equal(t, applepay.Stale, reason(t, err))
	_, err = applepay.Opener{Roots: sandboxOpener(t).Roots, Keys: []applepay.ProcessingKey{key}}.Open(pd, signed.Add(time.Minute))
	assert.Equal(t, applepay.BadSignature, reason(t, err), "Apple's chain does not verify against the sandbox root")
	_, err = sandboxOpener(t).Open(pd, signed.Add(time.Minute))
	assert.Error(t, err)
}

// TestSandboxTokens: a sandbox token opens with the sandbox root and key;
// an hour later it is stale; a token of another processing key is not ours;
// any change to the data or the signed header breaks the signature.
func TestSandboxTokens(t *testing.T) {
	o := sandboxOpener(t)
	tok, err := paytokens.AppleToken(paytokens.SandboxSigner(), card())
	require.NoError(t, err)
	pd, err := applepay.Parse(tok)
	require.NoError(t, err)
	d, err := o.Open(pd, time.Now())
	require.NoError(t, err)
	assert.Equal(t, "4111111111111111", d.ApplicationPrimaryAccountNumber)
	assert.Equal(t, "978", d.CurrencyCode)
	assert.Equal(t, int64(1000), d.TransactionAmount)
	assert.Equal(t, pd.Header.TransactionID, d.TransactionID)

	_, err = o.Open(pd, time.Now().Add(time.Hour))
	assert.Equal(t, applepay.Stale, reason(t, err), "signed an hour ago")
	_, err = o.Open(pd, time.Now().Add(-time.Hour))
	assert.Equal(t, applepay.Stale, reason(t, err), "signed in the future")

	mutate := func(f func(*applepay.PaymentData)) *applepay.PaymentData {
		c := *pd
		f(&c)
		return &c
	}
	flip := func(s string) string {
		b, _ := base64.StdEncoding.DecodeString(s)
		b[len(b)/2] ^= 1
		return base64.StdEncoding.EncodeToString(b)
	}
	for name, bad := range map[string]*applepay.PaymentData{
		"data":           mutate(func(p *applepay.PaymentData) { p.Data = flip(p.Data) }),
		"ephemeral key":  mutate(func(p *applepay.PaymentData) { p.Header.EphemeralPublicKey = flip(p.Header.EphemeralPublicKey) }),
		"transaction id": mutate(func(p *applepay.PaymentData) { p.Header.TransactionID = strings.Repeat("0", 64) }),
		"signature":      mutate(func(p *applepay.PaymentData) { p.Signature = flip(p.Signature) }),
	} {
		_, err := o.Open(bad, time.Now())
		require.Error(t, err, name)
		assert.Contains(t, []applepay.Reason{applepay.BadSignature, applepay.Malformed}, reason(t, err), name)
	}
	// publicKeyHash is a hint (not signed): another one still opens with
	// the key that does; a token of another merchant's key opens with none.
	other := mutate(func(p *applepay.PaymentData) {
		p.Header.PublicKeyHash = base64.StdEncoding.EncodeToString(make([]byte, 32))
	})
	_, err = o.Open(other, time.Now())
	assert.NoError(t, err)
	gala := loadGalaKey(t)
	_, err = applepay.Opener{Roots: o.Roots, Keys: []applepay.ProcessingKey{gala}}.Open(pd, time.Now())
	assert.Equal(t, applepay.NotOurs, reason(t, err))
}

// TestChainsThatDoNotVerify: a token signed by a chain of another root is
// refused; so is one whose chain verifies but whose leaf or intermediate
// lacks Apple's marker (the same chain with both markers opens: the control).
func TestChainsThatDoNotVerify(t *testing.T) {
	open := func(s paytokens.AppleSigner, roots *x509.CertPool) error {
		tok, err := paytokens.AppleToken(s, card())
		require.NoError(t, err)
		pd, err := applepay.Parse(tok)
		require.NoError(t, err)
		_, err = applepay.Opener{Roots: roots, Keys: []applepay.ProcessingKey{paytokens.AppleProcessingKey()}}.Open(pd, time.Now())
		return err
	}
	s, root := chain(t, true, true)
	assert.Equal(t, applepay.BadSignature, reason(t, open(s, sandboxOpener(t).Roots)), "another root")
	assert.NoError(t, open(s, pool(root)), "the control: trusted, both markers")
	s, root = chain(t, false, true)
	assert.Equal(t, applepay.BadSignature, reason(t, open(s, pool(root))), "no leaf marker")
	s, root = chain(t, true, false)
	assert.Equal(t, applepay.BadSignature, reason(t, open(s, pool(root))), "no intermediate marker")
}

func pool(c *x509.Certificate) *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(c)
	return p
}

func TestParseRefusals(t *testing.T) {
	for name, s := range map[string]string{
		"empty":      "",
		"not json":   "%%%",
		"RSA_v1":     `{"version":"RSA_v1","data":"x","signature":"x","header":{}}`,
		"no version": `{"data":"x"}`,
		"no header":  `{"version":"EC_v1","data":"x","signature":"x"}`,
	} {
		_, err := applepay.Parse(s)
		require.Error(t, err, name)
		if name == "RSA_v1" {
			assert.Equal(t, applepay.Unsupported, reason(t, err))
		}
	}
}

var (
	oidLeaf         = asn1.ObjectIdentifier{1, 2, 840, 113635, 100, 6, 29}
	oidIntermediate = asn1.ObjectIdentifier{1, 2, 840, 113635, 100, 6, 2, 14}
)

func newCert(t *testing.T, tmpl, parent *x509.Certificate, pub, signer any) *x509.Certificate {
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

func ecKey(t *testing.T) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	return k
}

func null() []byte { b, _ := asn1.Marshal(asn1.NullRawValue); return b }

// chain is a root, intermediate and leaf of a new root, with the markers
// as asked.
func chain(t *testing.T, leafMark, interMark bool) (paytokens.AppleSigner, *x509.Certificate) {
	rootKey := ecKey(t)
	root := newCert(t, &x509.Certificate{Subject: pkix.Name{CommonName: "Not Apple Root"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}, nil, &rootKey.PublicKey, rootKey)
	interKey := ecKey(t)
	it := &x509.Certificate{Subject: pkix.Name{CommonName: "Not Apple Intermediate"}, IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	if interMark {
		it.ExtraExtensions = []pkix.Extension{{Id: oidIntermediate, Value: null()}}
	}
	inter := newCert(t, it, root, &interKey.PublicKey, rootKey)
	leafKey := ecKey(t)
	lt := &x509.Certificate{Subject: pkix.Name{CommonName: "leaf"}, KeyUsage: x509.KeyUsageDigitalSignature}
	if leafMark {
		lt.ExtraExtensions = []pkix.Extension{{Id: oidLeaf, Value: null()}}
	}
	leaf := newCert(t, lt, inter, &leafKey.PublicKey, interKey)
	return paytokens.AppleSigner{Leaf: leaf, Intermediate: inter, Key: leafKey}, root
}

func loadGalaKey(t *testing.T) applepay.ProcessingKey {
	t.Helper()
	certPEM, err := os.ReadFile("testdata/gala-processing.pem")
	require.NoError(t, err)
	keyPEM, err := os.ReadFile("testdata/gala-processing-key.pem")
	require.NoError(t, err)
	key, err := applepay.NewProcessingKey(certPEM, keyPEM)
	require.NoError(t, err)
	return key
}

//go:build ignore

// gen makes the sandbox's wallet keys and certificates once (they are
// committed in keys/ and valid until 2050): go run gen.go in this directory.
// They are published on purpose, as test cards are: anyone may build
// sandbox tokens with them, and only test-mode accounts trust them.
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"encoding/pem"
	"math/big"
	"os"
	"time"
)

// Apple's certificate extensions (Apple Pay Payment Processing, "Payment
// token format reference"): the signing leaf's, the intermediate's, and the
// merchant identifier field of a merchant's certificates.
var (
	oidLeaf         = asn1.ObjectIdentifier{1, 2, 840, 113635, 100, 6, 29}
	oidIntermediate = asn1.ObjectIdentifier{1, 2, 840, 113635, 100, 6, 2, 14}
	oidMerchantID   = asn1.ObjectIdentifier{1, 2, 840, 113635, 100, 6, 32}
)

// MerchantIdentifier is the sandbox's Apple Pay merchant identifier.
const MerchantIdentifier = "merchant.test.paygate.sandbox"

var (
	notBefore = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	notAfter  = time.Date(2050, 1, 1, 0, 0, 0, 0, time.UTC)
	serial    = int64(1)
)

func key(c elliptic.Curve) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(c, rand.Reader)
	check(err)
	return k
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}

func cert(tmpl *x509.Certificate, parent *x509.Certificate, pub, signer any) *x509.Certificate {
	serial++
	tmpl.SerialNumber = big.NewInt(serial)
	tmpl.NotBefore, tmpl.NotAfter = notBefore, notAfter
	if parent == nil {
		parent = tmpl
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
	check(err)
	c, err := x509.ParseCertificate(der)
	check(err)
	return c
}

func write(name, typ string, der []byte) {
	check(os.WriteFile("keys/"+name, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o644))
}

func writeKey(name string, k *ecdsa.PrivateKey) {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	check(err)
	write(name, "PRIVATE KEY", der)
}

func null() []byte { b, _ := asn1.Marshal(asn1.NullRawValue); return b }

func main() {
	check(os.MkdirAll("keys", 0o755))
	org := []string{"Paygate Sandbox (not Apple)"}

	rootKey := key(elliptic.P384())
	root := cert(&x509.Certificate{Subject: pkix.Name{CommonName: "Paygate Sandbox Apple Root CA - G3", Organization: org},
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign}, nil, &rootKey.PublicKey, rootKey)
	interKey := key(elliptic.P256())
	inter := cert(&x509.Certificate{Subject: pkix.Name{CommonName: "Paygate Sandbox Apple Application Integration CA - G3", Organization: org},
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		ExtraExtensions: []pkix.Extension{{Id: oidIntermediate, Value: null()}}}, root, &interKey.PublicKey, rootKey)
	leafKey := key(elliptic.P256())
	leaf := cert(&x509.Certificate{Subject: pkix.Name{CommonName: "paygate-sandbox-ecc-smp-broker-sign", Organization: org},
		KeyUsage:        x509.KeyUsageDigitalSignature,
		ExtraExtensions: []pkix.Extension{{Id: oidLeaf, Value: null()}}}, inter, &leafKey.PublicKey, interKey)

	// The payment processing certificate carries the merchant identifier
	// field: the hex of SHA-256 of the merchant identifier, as Apple's do.
	sum := sha256.Sum256([]byte(MerchantIdentifier))
	field, err := asn1.MarshalWithParams(hex.EncodeToString(sum[:]), "utf8")
	check(err)
	procKey := key(elliptic.P256())
	proc := cert(&x509.Certificate{Subject: pkix.Name{CommonName: "Apple Pay Payment Processing:" + MerchantIdentifier, Organization: org},
		KeyUsage:        x509.KeyUsageKeyAgreement,
		ExtraExtensions: []pkix.Extension{{Id: oidMerchantID, Value: field}}}, root, &procKey.PublicKey, rootKey)

	write("applepay-root.pem", "CERTIFICATE", root.Raw)
	write("applepay-intermediate.pem", "CERTIFICATE", inter.Raw)
	write("applepay-leaf.pem", "CERTIFICATE", leaf.Raw)
	writeKey("applepay-leaf-key.pem", leafKey)
	write("applepay-processing.pem", "CERTIFICATE", proc.Raw)
	writeKey("applepay-processing-key.pem", procKey)

	// Google Pay: the sandbox's root signing key (Google's keys.json role)
	// and the gateway's recipient key.
	writeKey("googlepay-root-key.pem", key(elliptic.P256()))
	writeKey("googlepay-recipient-key.pem", key(elliptic.P256()))
}

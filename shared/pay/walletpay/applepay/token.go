// Package applepay verifies and decrypts Apple Pay payment tokens (EC_v1) and
// asks Apple's gateway for merchant sessions, as Apple's "Payment token
// format reference" and "Setting up your server" describe them.
//
// A token is opened in the order Apple gives: the CMS signature (parsed and
// checked by github.com/smallstep/pkcs7) over ephemeralPublicKey, data,
// transactionId and applicationData must come from a leaf certificate with
// Apple's leaf marker, issued by an intermediate with Apple's intermediate
// marker, chaining to the trusted root (Apple Root CA - G3 in live mode, the
// test wallets' root in test mode) at the signing time; the signing time must be
// recent (MaxAge); then the payment processing key named by publicKeyHash
// agrees a secret with the ephemeral key (crypto/ecdh), the NIST SP 800-56A
// concatenation KDF (one SHA-256 round) derives the AES-256 key, and
// AES-256-GCM with a 16-byte zero IV opens the data. Every primitive is Go's
// standard library or pkcs7's; this package only puts them in Apple's order.
package applepay

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/smallstep/pkcs7"
)

// MaxAge is how long after its signing a token is accepted; MaxSkew how far
// ahead of the server's clock its signing time may be. Apple: "If the
// signing time and the transaction time differ by more than a few minutes,
// it's possible that the token is a replay attack."
const (
	MaxAge  = 10 * time.Minute
	MaxSkew = 5 * time.Minute
)

// Apple's certificate extensions.
var (
	oidLeafMarker         = asn1.ObjectIdentifier{1, 2, 840, 113635, 100, 6, 29}
	oidIntermediateMarker = asn1.ObjectIdentifier{1, 2, 840, 113635, 100, 6, 2, 14}
	oidMerchantID         = asn1.ObjectIdentifier{1, 2, 840, 113635, 100, 6, 32}
)

// Reason says why a token was refused: a merchant can act on it (fetch a
// fresh token, check the processing certificate), and none of it helps
// forge one.
type Reason string

const (
	Malformed      Reason = "the token is not an Apple Pay payment token"
	Unsupported    Reason = "only EC_v1 tokens are supported"
	BadSignature   Reason = "the token's signature does not verify against Apple's certificates"
	Stale          Reason = "the token was signed too long ago (or in the future): ask the shopper to pay again"
	NotOurs        Reason = "the token was not encrypted for this payment processing certificate"
	Undecryptable  Reason = "the token's data could not be decrypted"
	BadPaymentData Reason = "the token's payment data is not what Apple sends"
)

// Error is a refused token.
type Error struct {
	Reason Reason
	cause  error // for logs; never shown
}

func (e *Error) Error() string {
	if e.cause != nil {
		return string(e.Reason) + ": " + e.cause.Error()
	}
	return string(e.Reason)
}

func refuse(r Reason, cause error) error { return &Error{Reason: r, cause: cause} }

// PaymentData is the token's paymentData (PKPaymentToken.paymentData).
type PaymentData struct {
	Version   string `json:"version"`
	Data      string `json:"data"`
	Signature string `json:"signature"`
	Header    Header `json:"header"`
}

// Header is the paymentData's header.
type Header struct {
	EphemeralPublicKey string `json:"ephemeralPublicKey"`
	PublicKeyHash      string `json:"publicKeyHash"`
	TransactionID      string `json:"transactionId"`
	ApplicationData    string `json:"applicationData,omitempty"`
}

// Parse reads a token as merchants get it: the JSON of PKPaymentToken
// ({"paymentData": {...}, "paymentMethod": ..., "transactionIdentifier": ...})
// or of its paymentData alone, as text or base64.
func Parse(s string) (*PaymentData, error) {
	raw := []byte(strings.TrimSpace(s))
	if len(raw) > 0 && raw[0] != '{' {
		dec, err := base64.StdEncoding.DecodeString(string(raw))
		if err != nil {
			return nil, refuse(Malformed, err)
		}
		raw = dec
	}
	var wrapper struct {
		PaymentData *PaymentData `json:"paymentData"`
	}
	if err := json.Unmarshal(raw, &wrapper); err != nil {
		return nil, refuse(Malformed, err)
	}
	pd := wrapper.PaymentData
	if pd == nil {
		pd = &PaymentData{}
		if err := json.Unmarshal(raw, pd); err != nil {
			return nil, refuse(Malformed, err)
		}
	}
	if pd.Version != "EC_v1" {
		if pd.Version == "RSA_v1" {
			return nil, refuse(Unsupported, nil)
		}
		return nil, refuse(Malformed, fmt.Errorf("version %q", pd.Version))
	}
	if pd.Data == "" || pd.Signature == "" || pd.Header.EphemeralPublicKey == "" || pd.Header.PublicKeyHash == "" || pd.Header.TransactionID == "" {
		return nil, refuse(Malformed, errors.New("a field of paymentData is missing"))
	}
	return pd, nil
}

// ProcessingKey is a payment processing certificate's private key and the
// merchant identifier field (the KDF's party V info) of its certificate.
type ProcessingKey struct {
	key            *ecdh.PrivateKey
	merchantIDHash []byte
	publicKeyHash  string // base64 SHA-256 of the public key's SubjectPublicKeyInfo
}

// NewProcessingKey reads a payment processing certificate and its private
// key (PEM: the certificate, and a PKCS#8 or SEC 1 EC key).
func NewProcessingKey(certPEM, keyPEM []byte) (ProcessingKey, error) {
	cb, _ := pem.Decode(certPEM)
	if cb == nil {
		return ProcessingKey{}, errors.New("applepay: no certificate PEM block")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return ProcessingKey{}, fmt.Errorf("applepay: processing certificate: %w", err)
	}
	var field []byte
	for _, ext := range cert.Extensions {
		if ext.Id.Equal(oidMerchantID) {
			var s string
			if _, err := asn1.Unmarshal(ext.Value, &s); err != nil {
				return ProcessingKey{}, fmt.Errorf("applepay: merchant identifier field: %w", err)
			}
			if field, err = hex.DecodeString(s); err != nil || len(field) != sha256.Size {
				return ProcessingKey{}, errors.New("applepay: the merchant identifier field is not a SHA-256 in hex")
			}
		}
	}
	if field == nil {
		return ProcessingKey{}, errors.New("applepay: the certificate has no merchant identifier field (not a payment processing certificate)")
	}
	kb, _ := pem.Decode(keyPEM)
	if kb == nil {
		return ProcessingKey{}, errors.New("applepay: no private key PEM block")
	}
	var priv any
	if priv, err = x509.ParsePKCS8PrivateKey(kb.Bytes); err != nil {
		if priv, err = x509.ParseECPrivateKey(kb.Bytes); err != nil {
			return ProcessingKey{}, fmt.Errorf("applepay: processing key: %w", err)
		}
	}
	ec, ok := priv.(*ecdsa.PrivateKey)
	if !ok {
		return ProcessingKey{}, errors.New("applepay: the processing key is not an EC key")
	}
	pub, ok := cert.PublicKey.(*ecdsa.PublicKey)
	if !ok || !pub.Equal(&ec.PublicKey) {
		return ProcessingKey{}, errors.New("applepay: the processing key is not the certificate's")
	}
	dh, err := ec.ECDH()
	if err != nil {
		return ProcessingKey{}, fmt.Errorf("applepay: processing key: %w", err)
	}
	sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	return ProcessingKey{key: dh, merchantIDHash: field, publicKeyHash: base64.StdEncoding.EncodeToString(sum[:])}, nil
}

// PublicKeyHash is the token header's publicKeyHash of tokens for this key.
func (k ProcessingKey) PublicKeyHash() string { return k.publicKeyHash }

// Decrypted is the token's decrypted payment data: card data that must never
// be returned, logged or stored in clear.
type Decrypted struct {
	ApplicationPrimaryAccountNumber string `json:"applicationPrimaryAccountNumber"`
	ApplicationExpirationDate       string `json:"applicationExpirationDate"` // YYMMDD
	CurrencyCode                    string `json:"currencyCode"`              // ISO 4217 numeric
	TransactionAmount               int64  `json:"transactionAmount"`
	CardholderName                  string `json:"cardholderName,omitempty"`
	DeviceManufacturerIdentifier    string `json:"deviceManufacturerIdentifier"`
	PaymentDataType                 string `json:"paymentDataType"` // 3DSecure or EMV
	PaymentData                     struct {
		OnlinePaymentCryptogram string `json:"onlinePaymentCryptogram,omitempty"`
		ECIIndicator            string `json:"eciIndicator,omitempty"`
		EMVData                 string `json:"emvData,omitempty"`
	} `json:"paymentData"`
	// TransactionID is the header's (not secret): one per payment the
	// shopper authorised.
	TransactionID string    `json:"-"`
	SigningTime   time.Time `json:"-"`
}

// ExpiryMonthYear splits applicationExpirationDate (YYMMDD).
func (d *Decrypted) ExpiryMonthYear() (month, year int, ok bool) {
	s := d.ApplicationExpirationDate
	if len(s) != 6 || strings.Trim(s, "0123456789") != "" {
		return 0, 0, false
	}
	year = 2000 + int(s[0]-'0')*10 + int(s[1]-'0')
	month = int(s[2]-'0')*10 + int(s[3]-'0')
	return month, year, month >= 1 && month <= 12
}

// Opener opens tokens for a set of processing keys, trusting roots.
type Opener struct {
	Roots *x509.CertPool
	Keys  []ProcessingKey
}

// Open verifies pd at now and decrypts it. Errors are *Error.
func (o Opener) Open(pd *PaymentData, now time.Time) (*Decrypted, error) {
	signingTime, err := o.verify(pd)
	if err != nil {
		return nil, err
	}
	if now.Sub(signingTime) > MaxAge || signingTime.Sub(now) > MaxSkew {
		return nil, refuse(Stale, fmt.Errorf("signed %s, now %s", signingTime.Format(time.RFC3339), now.UTC().Format(time.RFC3339)))
	}
	plain, err := o.decrypt(pd)
	if err != nil {
		return nil, err
	}
	var d Decrypted
	if err := json.Unmarshal(plain, &d); err != nil || d.ApplicationPrimaryAccountNumber == "" {
		return nil, refuse(BadPaymentData, errors.New("not the payment data JSON"))
	}
	if _, _, ok := d.ExpiryMonthYear(); !ok {
		return nil, refuse(BadPaymentData, errors.New("applicationExpirationDate is not YYMMDD"))
	}
	d.TransactionID, d.SigningTime = pd.Header.TransactionID, signingTime
	return &d, nil
}

// verify checks the signature and its chain and returns the signing time.
func (o Opener) verify(pd *PaymentData) (time.Time, error) {
	der, err := base64.StdEncoding.DecodeString(pd.Signature)
	if err != nil {
		return time.Time{}, refuse(Malformed, err)
	}
	p7, err := pkcs7.Parse(der)
	if err != nil {
		return time.Time{}, refuse(BadSignature, err)
	}
	var leaf, intermediate *x509.Certificate
	for _, c := range p7.Certificates {
		for _, ext := range c.Extensions {
			switch {
			case ext.Id.Equal(oidLeafMarker):
				leaf = c
			case ext.Id.Equal(oidIntermediateMarker):
				intermediate = c
			}
		}
	}
	if leaf == nil || intermediate == nil {
		return time.Time{}, refuse(BadSignature, errors.New("the certificates lack Apple's leaf or intermediate marker"))
	}
	if signer := p7.GetOnlySigner(); signer == nil || !signer.Equal(leaf) {
		return time.Time{}, refuse(BadSignature, errors.New("the signer is not the marked leaf"))
	}
	if err := leaf.CheckSignatureFrom(intermediate); err != nil {
		return time.Time{}, refuse(BadSignature, fmt.Errorf("the leaf is not issued by the marked intermediate: %w", err))
	}
	var signingTime time.Time
	if err := p7.UnmarshalSignedAttribute(pkcs7.OIDAttributeSigningTime, &signingTime); err != nil {
		return time.Time{}, refuse(BadSignature, fmt.Errorf("no signing time: %w", err))
	}
	signed, err := signedData(pd)
	if err != nil {
		return time.Time{}, refuse(Malformed, err)
	}
	p7.Content = signed
	// The chain (leaf, intermediate, a trusted root) is checked at the
	// signing time; that time is then held to MaxAge of now.
	if err := p7.VerifyWithChainAtTime(o.Roots, signingTime); err != nil {
		return time.Time{}, refuse(BadSignature, err)
	}
	return signingTime, nil
}

// signedData is what the signature covers: ephemeralPublicKey, data,
// transactionId and applicationData, as bytes, in that order.
func signedData(pd *PaymentData) ([]byte, error) {
	eph, err := base64.StdEncoding.DecodeString(pd.Header.EphemeralPublicKey)
	if err != nil {
		return nil, err
	}
	data, err := base64.StdEncoding.DecodeString(pd.Data)
	if err != nil {
		return nil, err
	}
	txn, err := hex.DecodeString(pd.Header.TransactionID)
	if err != nil {
		return nil, err
	}
	app, err := hex.DecodeString(pd.Header.ApplicationData)
	if err != nil {
		return nil, err
	}
	return bytes.Join([][]byte{eph, data, txn, app}, nil), nil
}

// SymmetricKey derives the AES-256 key from the ECDH secret: NIST SP
// 800-56A's concatenation KDF with SHA-256, one round (counter 1), other
// info algorithm ID 0x0D "id-aes256-GCM", party U "Apple", party V the
// merchant identifier field.
func SymmetricKey(shared, merchantIDHash []byte) []byte {
	h := sha256.New()
	h.Write([]byte{0, 0, 0, 1})
	h.Write(shared)
	h.Write([]byte("\x0did-aes256-GCM"))
	h.Write([]byte("Apple"))
	h.Write(merchantIDHash)
	return h.Sum(nil)
}

// decrypt opens the data with the processing key publicKeyHash names, else
// with each other key: the hash is a hint (it is not signed), and GCM's tag
// tells a wrong key from the right one. A token no key opens was not
// encrypted for this merchant.
func (o Opener) decrypt(pd *PaymentData) ([]byte, error) {
	if len(o.Keys) == 0 {
		return nil, refuse(NotOurs, errors.New("no processing keys"))
	}
	order := make([]*ProcessingKey, 0, len(o.Keys))
	for i := range o.Keys {
		if o.Keys[i].publicKeyHash == pd.Header.PublicKeyHash {
			order = append([]*ProcessingKey{&o.Keys[i]}, order...)
		} else {
			order = append(order, &o.Keys[i])
		}
	}
	var last error
	for _, k := range order {
		plain, err := decryptWith(pd, k)
		if err == nil {
			return plain, nil
		}
		last = err
	}
	if order[0].publicKeyHash != pd.Header.PublicKeyHash {
		return nil, refuse(NotOurs, last)
	}
	return nil, refuse(Undecryptable, last)
}

func decryptWith(pd *PaymentData, key *ProcessingKey) ([]byte, error) {
	ephDER, err := base64.StdEncoding.DecodeString(pd.Header.EphemeralPublicKey)
	if err != nil {
		return nil, err
	}
	pub, err := x509.ParsePKIXPublicKey(ephDER)
	if err != nil {
		return nil, err
	}
	ecPub, ok := pub.(*ecdsa.PublicKey)
	if !ok {
		return nil, errors.New("the ephemeral key is not an EC key")
	}
	dhPub, err := ecPub.ECDH()
	if err != nil {
		return nil, err
	}
	shared, err := key.key.ECDH(dhPub)
	if err != nil {
		return nil, err
	}
	data, err := base64.StdEncoding.DecodeString(pd.Data)
	if err != nil {
		return nil, err
	}
	return openGCM(SymmetricKey(shared, key.merchantIDHash), data)
}

// openGCM is AES-256-GCM with a 16-byte zero IV, the tag at the end.
func openGCM(key, data []byte) ([]byte, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCMWithNonceSize(block, 16)
	if err != nil {
		return nil, err
	}
	return gcm.Open(nil, make([]byte, 16), data, nil)
}

// SealGCM is openGCM's inverse, for test token builders.
func SealGCM(key, plaintext []byte) ([]byte, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCMWithNonceSize(block, 16)
	if err != nil {
		return nil, err
	}
	return gcm.Seal(nil, make([]byte, 16), plaintext, nil), nil
}

// RootG3 is Apple Root CA - G3 (https://www.apple.com/certificateauthority/,
// SHA-256 fingerprint 63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:
// 5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79; valid until 2039-04-30), the
// root of live tokens.
const RootG3 = `-----BEGIN CERTIFICATE-----
MIICQzCCAcmgAwIBAgIILcX8iNLFS5UwCgYIKoZIzj0EAwMwZzEbMBkGA1UEAwwS
QXBwbGUgUm9vdCBDQSAtIEczMSYwJAYDVQQLDB1BcHBsZSBDZXJ0aWZpY2F0aW9u
IEF1dGhvcml0eTETMBEGA1UECgwKQXBwbGUgSW5jLjELMAkGA1UEBhMCVVMwHhcN
MTQwNDMwMTgxOTA2WhcNMzkwNDMwMTgxOTA2WjBnMRswGQYDVQQDDBJBcHBsZSBS
b290IENBIC0gRzMxJjAkBgNVBAsMHUFwcGxlIENlcnRpZmljYXRpb24gQXV0aG9y
aXR5MRMwEQYDVQQKDApBcHBsZSBJbmMuMQswCQYDVQQGEwJVUzB2MBAGByqGSM49
AgEGBSuBBAAiA2IABJjpLz1AcqTtkyJygRMc3RCV8cWjTnHcFBbZDuWmBSp3ZHtf
TjjTuxxEtX/1H7YyYl3J6YRbTzBPEVoA/VhYDKX1DyxNB0cTddqXl5dvMVztK517
IDvYuVTZXpmkOlEKMaNCMEAwHQYDVR0OBBYEFLuw3qFYM4iapIqZ3r6966/ayySr
MA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQDAgEGMAoGCCqGSM49BAMDA2gA
MGUCMQCD6cHEFl4aXTQY2e3v9GwOAEZLuN+yRhHFD/3meoyhpmvOwgPUnPWTxnS4
at+qIxUCMG1mihDK1A3UT82NQz60imOlM27jbdoXt2QfyFMm+YhidDkLF1vLUagM
6BgD56KyKA==
-----END CERTIFICATE-----
`

// Roots is a pool of PEM certificates.
func Roots(pems ...string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	for _, p := range pems {
		if !pool.AppendCertsFromPEM([]byte(p)) {
			return nil, errors.New("applepay: a root is not a PEM certificate")
		}
	}
	return pool, nil
}

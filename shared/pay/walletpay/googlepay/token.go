// Package googlepay verifies and decrypts Google Pay payment tokens (ECv2,
// Google's "Payment data cryptography for merchants") and builds the parts
// of a PaymentDataRequest a merchant's page needs.
//
// A token is opened in Google's order: the intermediate signing key must be
// signed by one of the root signing keys (ECDSA P-256, SHA-256, over the
// length-prefixed "Google", "ECv2" and signedKey) and not expired; the
// signed message must be signed by that intermediate key (over "Google",
// the recipient id, "ECv2" and signedMessage); then ECIES-KEM: ECDH of the
// recipient key with the ephemeral key, HKDF-SHA256 (ephemeral key ||
// secret, zero salt, info "Google") to 64 bytes, the HMAC-SHA256 tag over
// encryptedMessage checked in constant time with the second 32 bytes, and
// AES-256-CTR with a zero IV and the first 32 bytes. The message must not be
// past messageExpiration. The primitives are Go's standard library
// (crypto/ecdh, crypto/ecdsa, crypto/hkdf, crypto/hmac, crypto/aes,
// crypto/cipher); tink-go has no Go implementation of this protocol (its
// ECIES uses an AEAD DEM, not Google Pay's CTR+HMAC), so only Google's
// composition is written here, as tink's Java PaymentMethodTokenRecipient
// does it, and it is tested against a token published with tink's keys.
package googlepay

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// GatewayID is the platform's Google Pay gateway id: merchants' pages ask
// Google for tokens for "gateway": "paygate", and tokens are signed for
// recipient "gateway:paygate".
const GatewayID = "paygate"

// ProtocolVersion is the one version accepted.
const ProtocolVersion = "ECv2"

// Reason says why a token was refused.
type Reason string

const (
	Malformed      Reason = "the token is not a Google Pay payment token"
	Unsupported    Reason = "only ECv2 tokens are supported"
	BadSignature   Reason = "the token's signatures do not verify against Google's signing keys"
	KeyExpired     Reason = "the token's intermediate signing key has expired"
	Expired        Reason = "the token's message has expired: ask the shopper to pay again"
	Undecryptable  Reason = "the token could not be decrypted"
	BadPaymentData Reason = "the token's payment data is not what Google sends"
)

// Error is a refused token.
type Error struct {
	Reason Reason
	cause  error
}

func (e *Error) Error() string {
	if e.cause != nil {
		return string(e.Reason) + ": " + e.cause.Error()
	}
	return string(e.Reason)
}

func refuse(r Reason, cause error) error { return &Error{Reason: r, cause: cause} }

// Token is tokenizationData.token, parsed.
type Token struct {
	Signature              string `json:"signature"`
	IntermediateSigningKey struct {
		SignedKey  string   `json:"signedKey"`
		Signatures []string `json:"signatures"`
	} `json:"intermediateSigningKey"`
	ProtocolVersion string `json:"protocolVersion"`
	SignedMessage   string `json:"signedMessage"`
}

// Parse reads a token string (the JSON of tokenizationData.token, as text
// or base64).
func Parse(s string) (*Token, error) {
	raw := []byte(strings.TrimSpace(s))
	if len(raw) > 0 && raw[0] != '{' {
		dec, err := base64.StdEncoding.DecodeString(string(raw))
		if err != nil {
			return nil, refuse(Malformed, err)
		}
		raw = dec
	}
	var t Token
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, refuse(Malformed, err)
	}
	if t.ProtocolVersion != ProtocolVersion {
		if t.ProtocolVersion == "ECv1" {
			return nil, refuse(Unsupported, nil)
		}
		return nil, refuse(Malformed, fmt.Errorf("protocolVersion %q", t.ProtocolVersion))
	}
	if t.Signature == "" || t.SignedMessage == "" || t.IntermediateSigningKey.SignedKey == "" || len(t.IntermediateSigningKey.Signatures) == 0 {
		return nil, refuse(Malformed, errors.New("a field is missing"))
	}
	return &t, nil
}

// RootKey is one of Google's root signing keys (keys.json's entries).
type RootKey struct {
	KeyValue        string `json:"keyValue"` // base64 SubjectPublicKeyInfo
	ProtocolVersion string `json:"protocolVersion"`
	KeyExpiration   string `json:"keyExpiration,omitempty"` // Unix milliseconds
}

// Message is the decrypted message; PaymentMethodDetails holds card data
// that must never be returned, logged or stored in clear.
type Message struct {
	MessageExpiration    string `json:"messageExpiration"`
	MessageID            string `json:"messageId"`
	PaymentMethod        string `json:"paymentMethod"`
	GatewayMerchantID    string `json:"gatewayMerchantId"`
	PaymentMethodDetails struct {
		PAN             string `json:"pan"`
		ExpirationMonth int    `json:"expirationMonth"`
		ExpirationYear  int    `json:"expirationYear"`
		AuthMethod      string `json:"authMethod"` // PAN_ONLY or CRYPTOGRAM_3DS
		Cryptogram      string `json:"cryptogram,omitempty"`
		ECIIndicator    string `json:"eciIndicator,omitempty"`
	} `json:"paymentMethodDetails"`
}

// Opener opens tokens signed for RecipientID with one of Keys.
type Opener struct {
	RootKeys    []RootKey
	RecipientID string
	Keys        []*ecdh.PrivateKey
}

// lengthPrefixed is Google's signed-string encoding: each part preceded by
// its length as 4 little-endian bytes.
func lengthPrefixed(parts ...string) []byte {
	var out []byte
	for _, p := range parts {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(p)))
		out = append(out, p...)
	}
	return out
}

func parseKey(b64 string) (*ecdsa.PublicKey, error) {
	der, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, err
	}
	k, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return nil, err
	}
	ec, ok := k.(*ecdsa.PublicKey)
	if !ok {
		return nil, errors.New("not an EC key")
	}
	return ec, nil
}

func verify(pub *ecdsa.PublicKey, signed []byte, sigB64 string) bool {
	sig, err := base64.StdEncoding.DecodeString(sigB64)
	if err != nil {
		return false
	}
	sum := sha256.Sum256(signed)
	return ecdsa.VerifyASN1(pub, sum[:], sig)
}

func millis(s string) (time.Time, error) {
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(ms), nil
}

// Open verifies t at now and decrypts its message. Errors are *Error.
func (o Opener) Open(t *Token, now time.Time) (*Message, error) {
	// The intermediate key, signed by a root key of the protocol.
	signedKey := lengthPrefixed("Google", ProtocolVersion, t.IntermediateSigningKey.SignedKey)
	rootOK := false
	for _, rk := range o.RootKeys {
		if rk.ProtocolVersion != ProtocolVersion {
			continue
		}
		if rk.KeyExpiration != "" {
			if exp, err := millis(rk.KeyExpiration); err != nil || !now.Before(exp) {
				continue
			}
		}
		pub, err := parseKey(rk.KeyValue)
		if err != nil {
			continue
		}
		for _, sig := range t.IntermediateSigningKey.Signatures {
			if verify(pub, signedKey, sig) {
				rootOK = true
			}
		}
	}
	if !rootOK {
		return nil, refuse(BadSignature, errors.New("no root key signed the intermediate key"))
	}
	var inter struct {
		KeyValue      string `json:"keyValue"`
		KeyExpiration string `json:"keyExpiration"`
	}
	if err := json.Unmarshal([]byte(t.IntermediateSigningKey.SignedKey), &inter); err != nil {
		return nil, refuse(Malformed, err)
	}
	exp, err := millis(inter.KeyExpiration)
	if err != nil {
		return nil, refuse(Malformed, err)
	}
	if !now.Before(exp) {
		return nil, refuse(KeyExpired, nil)
	}
	interKey, err := parseKey(inter.KeyValue)
	if err != nil {
		return nil, refuse(Malformed, err)
	}
	if !verify(interKey, lengthPrefixed("Google", o.RecipientID, ProtocolVersion, t.SignedMessage), t.Signature) {
		return nil, refuse(BadSignature, errors.New("the intermediate key did not sign the message for this recipient"))
	}
	var sm struct {
		EncryptedMessage   string `json:"encryptedMessage"`
		EphemeralPublicKey string `json:"ephemeralPublicKey"`
		Tag                string `json:"tag"`
	}
	if err := json.Unmarshal([]byte(t.SignedMessage), &sm); err != nil {
		return nil, refuse(Malformed, err)
	}
	plain, err := o.decrypt(sm.EncryptedMessage, sm.EphemeralPublicKey, sm.Tag)
	if err != nil {
		return nil, refuse(Undecryptable, err)
	}
	var m Message
	if err := json.Unmarshal(plain, &m); err != nil {
		return nil, refuse(BadPaymentData, errors.New("not the message JSON"))
	}
	mexp, err := millis(m.MessageExpiration)
	if err != nil {
		return nil, refuse(BadPaymentData, errors.New("messageExpiration is not Unix milliseconds"))
	}
	if !now.Before(mexp) {
		return nil, refuse(Expired, nil)
	}
	return &m, nil
}

// keys derives the AES and HMAC keys from the ephemeral key and the secret.
func keys(ephemeral, shared []byte) (aesKey, macKey []byte, err error) {
	ikm := append(append([]byte{}, ephemeral...), shared...)
	k, err := hkdf.Key(sha256.New, ikm, make([]byte, sha256.Size), "Google", 64)
	if err != nil {
		return nil, nil, err
	}
	return k[:32], k[32:], nil
}

func (o Opener) decrypt(encB64, ephB64, tagB64 string) ([]byte, error) {
	enc, err1 := base64.StdEncoding.DecodeString(encB64)
	eph, err2 := base64.StdEncoding.DecodeString(ephB64)
	tag, err3 := base64.StdEncoding.DecodeString(tagB64)
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, err
	}
	pub, err := ecdh.P256().NewPublicKey(eph)
	if err != nil {
		return nil, err
	}
	for _, k := range o.Keys {
		shared, err := k.ECDH(pub)
		if err != nil {
			continue
		}
		aesKey, macKey, err := keys(eph, shared)
		if err != nil {
			return nil, err
		}
		m := hmac.New(sha256.New, macKey)
		m.Write(enc)
		if !hmac.Equal(m.Sum(nil), tag) {
			continue // another recipient key's token, or tampered
		}
		return ctr(aesKey, enc)
	}
	return nil, errors.New("no recipient key opens the message")
}

// ctr is AES-256-CTR with a zero IV (its own inverse).
func ctr(key, in []byte) ([]byte, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	out := make([]byte, len(in))
	cipher.NewCTR(block, make([]byte, aes.BlockSize)).XORKeyStream(out, in)
	return out, nil
}

// SealInput is what Seal needs to make a token as Google does.
type SealInput struct {
	RootKey      *ecdsa.PrivateKey
	RecipientID  string
	RecipientKey *ecdh.PublicKey
	Message      []byte
	Now          time.Time
	KeyLifetime  time.Duration // of the intermediate key; 0: 7 days
}

// Seal makes an ECv2 token (for test tokens): a fresh intermediate
// key signed by RootKey, the message encrypted to RecipientKey and signed by
// the intermediate key for RecipientID.
func Seal(in SealInput) (string, error) {
	if in.KeyLifetime == 0 {
		in.KeyLifetime = 7 * 24 * time.Hour
	}
	inter, err := ecdsa.GenerateKey(in.RootKey.Curve, rand.Reader)
	if err != nil {
		return "", err
	}
	interDER, err := x509.MarshalPKIXPublicKey(&inter.PublicKey)
	if err != nil {
		return "", err
	}
	signedKey, err := json.Marshal(map[string]string{"keyValue": base64.StdEncoding.EncodeToString(interDER),
		"keyExpiration": strconv.FormatInt(in.Now.Add(in.KeyLifetime).UnixMilli(), 10)})
	if err != nil {
		return "", err
	}
	sign := func(k *ecdsa.PrivateKey, b []byte) (string, error) {
		sum := sha256.Sum256(b)
		sig, err := ecdsa.SignASN1(rand.Reader, k, sum[:])
		return base64.StdEncoding.EncodeToString(sig), err
	}
	keySig, err := sign(in.RootKey, lengthPrefixed("Google", ProtocolVersion, string(signedKey)))
	if err != nil {
		return "", err
	}
	eph, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return "", err
	}
	shared, err := eph.ECDH(in.RecipientKey)
	if err != nil {
		return "", err
	}
	ephBytes := eph.PublicKey().Bytes() // uncompressed point
	aesKey, macKey, err := keys(ephBytes, shared)
	if err != nil {
		return "", err
	}
	enc, err := ctr(aesKey, in.Message)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, macKey)
	m.Write(enc)
	signedMessage, err := json.Marshal(map[string]string{"encryptedMessage": base64.StdEncoding.EncodeToString(enc),
		"ephemeralPublicKey": base64.StdEncoding.EncodeToString(ephBytes), "tag": base64.StdEncoding.EncodeToString(m.Sum(nil))})
	if err != nil {
		return "", err
	}
	msgSig, err := sign(inter, lengthPrefixed("Google", in.RecipientID, ProtocolVersion, string(signedMessage)))
	if err != nil {
		return "", err
	}
	tok := Token{Signature: msgSig, ProtocolVersion: ProtocolVersion, SignedMessage: string(signedMessage)}
	tok.IntermediateSigningKey.SignedKey = string(signedKey)
	tok.IntermediateSigningKey.Signatures = []string{keySig}
	out, err := json.Marshal(tok)
	return string(out), err
}

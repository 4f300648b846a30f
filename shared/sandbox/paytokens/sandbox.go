// Package paytokens holds the test mode's Apple Pay and Google Pay keys and
// builds tokens with them: an Apple Pay root, intermediate and signing leaf
// (with Apple's certificate markers), a payment processing certificate and
// key; a Google Pay root signing key and the gateway's recipient key. They
// were made once by gen.go and are published on purpose, like test cards:
// anyone can build sandbox tokens (the test helper routes do, for merchants
// without a device), and only test-mode accounts trust them. Live mode trusts
// Apple's and Google's roots and holds its own keys in the secret store.
package paytokens

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"strconv"
	"sync"
	"time"

	"github.com/smallstep/pkcs7"

	"github.com/paygate/paygate/shared/pay/walletpay/applepay"
	"github.com/paygate/paygate/shared/pay/walletpay/googlepay"
)

//go:embed keys/*.pem
var files embed.FS

// MerchantIdentifier is the sandbox's Apple Pay merchant identifier.
const MerchantIdentifier = "merchant.test.paygate.sandbox"

// GoogleRecipientID is the recipient the sandbox's Google Pay tokens are
// signed for (the gateway's, as live ones are: "gateway:<gateway id>").
const GoogleRecipientID = "gateway:" + googlepay.GatewayID

func read(name string) []byte {
	b, err := files.ReadFile("keys/" + name)
	if err != nil {
		panic(err)
	}
	return b
}

func cert(name string) *x509.Certificate {
	b, _ := pem.Decode(read(name))
	c, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		panic(err)
	}
	return c
}

func key(name string) *ecdsa.PrivateKey {
	b, _ := pem.Decode(read(name))
	k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		panic(err)
	}
	return k.(*ecdsa.PrivateKey)
}

// AppleRootPEM is the sandbox's Apple Pay root (test mode trusts it).
func AppleRootPEM() string { return string(read("applepay-root.pem")) }

// AppleProcessingKey is the sandbox's payment processing key.
func AppleProcessingKey() applepay.ProcessingKey {
	k, err := applepay.NewProcessingKey(read("applepay-processing.pem"), read("applepay-processing-key.pem"))
	if err != nil {
		panic(err)
	}
	return k
}

// GoogleRootKeys are the sandbox's Google Pay root signing keys.
func GoogleRootKeys() []googlepay.RootKey {
	pub := key("googlepay-root-key.pem").Public().(*ecdsa.PublicKey)
	der, _ := x509.MarshalPKIXPublicKey(pub)
	return []googlepay.RootKey{{KeyValue: base64.StdEncoding.EncodeToString(der), ProtocolVersion: "ECv2"}}
}

// GoogleRecipientKey is the sandbox gateway's recipient private key.
func GoogleRecipientKey() *ecdh.PrivateKey {
	k, err := key("googlepay-recipient-key.pem").ECDH()
	if err != nil {
		panic(err)
	}
	return k
}

// AppleCard is what an Apple Pay sandbox token carries.
type AppleCard struct {
	Number        string // the device account number (a test card)
	Expiry        time.Time
	Amount        int64
	CurrencyCode  string // ISO 4217 numeric ("978" for EUR)
	Cryptogram    string // "" for none
	TransactionID string // hex; "" for a random one
}

// AppleSigner signs Apple Pay tokens: the sandbox's own leaf, or (for tests
// of the chain) any other.
type AppleSigner struct {
	Leaf         *x509.Certificate
	Intermediate *x509.Certificate
	Key          *ecdsa.PrivateKey
}

var (
	signerOnce sync.Once
	signer     AppleSigner
)

// SandboxSigner is the sandbox's Apple Pay signing leaf and intermediate.
func SandboxSigner() AppleSigner {
	signerOnce.Do(func() {
		signer = AppleSigner{Leaf: cert("applepay-leaf.pem"), Intermediate: cert("applepay-intermediate.pem"), Key: key("applepay-leaf-key.pem")}
	})
	return signer
}

// AppleToken builds an EC_v1 token for the sandbox's processing
// certificate, signed by s, as the paymentData JSON a device sends.
func AppleToken(s AppleSigner, c AppleCard) (string, error) {
	proc := cert("applepay-processing.pem")
	procPub, err := proc.PublicKey.(*ecdsa.PublicKey).ECDH()
	if err != nil {
		return "", err
	}
	eph, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return "", err
	}
	shared, err := eph.ECDH(procPub)
	if err != nil {
		return "", err
	}
	mid := sha256.Sum256([]byte(MerchantIdentifier))
	payload := map[string]any{
		"applicationPrimaryAccountNumber": c.Number,
		"applicationExpirationDate":       c.Expiry.Format("060102"),
		"currencyCode":                    c.CurrencyCode,
		"transactionAmount":               c.Amount,
		"deviceManufacturerIdentifier":    "040010030273",
		"paymentDataType":                 "3DSecure",
		"paymentData":                     map[string]string{"onlinePaymentCryptogram": c.Cryptogram, "eciIndicator": "5"},
	}
	if c.Cryptogram == "" {
		payload["paymentDataType"] = "EMV"
		payload["paymentData"] = map[string]string{"emvData": base64.StdEncoding.EncodeToString([]byte("sandbox"))}
	}
	plain, err := json.Marshal(payload)
	if err != nil {
		return "", err
	}
	data, err := applepay.SealGCM(applepay.SymmetricKey(shared, mid[:]), plain)
	if err != nil {
		return "", err
	}
	ephDER, err := x509.MarshalPKIXPublicKey(eph.PublicKey())
	if err != nil {
		return "", err
	}
	txn := c.TransactionID
	if txn == "" {
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		txn = hex.EncodeToString(b)
	}
	pd := applepay.PaymentData{Version: "EC_v1", Data: base64.StdEncoding.EncodeToString(data),
		Header: applepay.Header{EphemeralPublicKey: base64.StdEncoding.EncodeToString(ephDER),
			PublicKeyHash: AppleProcessingKey().PublicKeyHash(), TransactionID: txn}}
	txnBytes, _ := hex.DecodeString(txn)
	signed := append(append(append([]byte{}, ephDER...), data...), txnBytes...)
	sig, err := cms(s, signed)
	if err != nil {
		return "", err
	}
	pd.Signature = base64.StdEncoding.EncodeToString(sig)
	out, err := json.Marshal(pd)
	return string(out), err
}

// cms is a detached CMS signature of data by s's leaf, with its chain; the
// signing time is the time of the call (pkcs7's), so a token is as old as
// the clock that reads it says.
func cms(s AppleSigner, data []byte) ([]byte, error) {
	sd, err := pkcs7.NewSignedData(data)
	if err != nil {
		return nil, err
	}
	sd.SetDigestAlgorithm(pkcs7.OIDDigestAlgorithmSHA256)
	if err := sd.AddSignerChain(s.Leaf, s.Key, []*x509.Certificate{s.Intermediate}, pkcs7.SignerInfoConfig{}); err != nil {
		return nil, err
	}
	sd.Detach()
	return sd.Finish()
}

// GoogleCard is what a Google Pay sandbox token carries.
type GoogleCard struct {
	Number            string
	ExpiryMonth       int
	ExpiryYear        int
	Cryptogram        string // "" for PAN_ONLY
	GatewayMerchantID string // the account id the token is for
	MessageID         string // "" for a random one
	Expiration        time.Time
}

// GoogleToken builds an ECv2 token for the sandbox gateway, signed through
// an intermediate key by the sandbox root, as the token string
// (tokenizationData.token) a page gets from Google Pay.
func GoogleToken(c GoogleCard, now time.Time) (string, error) {
	details := map[string]any{"pan": c.Number, "expirationMonth": c.ExpiryMonth, "expirationYear": c.ExpiryYear, "authMethod": "PAN_ONLY"}
	if c.Cryptogram != "" {
		details["authMethod"], details["cryptogram"], details["eciIndicator"] = "CRYPTOGRAM_3DS", c.Cryptogram, "05"
	}
	id := c.MessageID
	if id == "" {
		b := make([]byte, 24)
		_, _ = rand.Read(b)
		id = "SANDBOX" + base64.RawURLEncoding.EncodeToString(b)
	}
	exp := c.Expiration
	if exp.IsZero() {
		exp = now.Add(time.Hour)
	}
	msg, err := json.Marshal(map[string]any{"messageExpiration": strconv.FormatInt(exp.UnixMilli(), 10), "messageId": id,
		"paymentMethod": "CARD", "paymentMethodDetails": details, "gatewayMerchantId": c.GatewayMerchantID})
	if err != nil {
		return "", err
	}
	return googlepay.Seal(googlepay.SealInput{
		RootKey: key("googlepay-root-key.pem"), RecipientID: GoogleRecipientID,
		RecipientKey: GoogleRecipientKey().PublicKey(), Message: msg, Now: now})
}

// PEM is one of the sandbox's key or certificate files (keys/), for tests
// that stand the sandbox's keys in for live ones.
func PEM(name string) string { return string(read(name)) }

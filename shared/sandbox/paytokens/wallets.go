package paytokens

import (
	"crypto/ecdh"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/paygate/paygate/shared/pay/walletpay/applepay"
	"github.com/paygate/paygate/shared/pay/walletpay/googlepay"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// Sandbox is the sandbox's wallets as walletpay's test wallets
// (walletpay.TestWallets): the wiring hands it to walletpay for test keys.
// (This package does not name walletpay's interface: walletpay's own tests
// import this package.)
type Sandbox struct{}

// New is the sandbox's wallets.
func New() Sandbox { return Sandbox{} }

// defaultCard is the test card of a token made without a number, and
// cardExpiry the expiry of every token the test helpers make.
const defaultCard = "4111111111111111"

var cardExpiry = time.Date(2030, 12, 31, 0, 0, 0, 0, time.UTC)

var (
	openersOnce  sync.Once
	appleOpener  applepay.Opener
	googleOpener googlepay.Opener
)

func openers() {
	openersOnce.Do(func() {
		roots, err := applepay.Roots(AppleRootPEM())
		if err != nil {
			panic(err) // embedded
		}
		appleOpener = applepay.Opener{Roots: roots, Keys: []applepay.ProcessingKey{AppleProcessingKey()}}
		googleOpener = googlepay.Opener{RootKeys: GoogleRootKeys(), RecipientID: GoogleRecipientID,
			Keys: []*ecdh.PrivateKey{GoogleRecipientKey()}}
	})
}

// AppleOpener trusts the sandbox's Apple Pay root and holds its processing key.
func (Sandbox) AppleOpener() applepay.Opener { openers(); return appleOpener }

// GoogleOpener trusts the sandbox's Google Pay root key and holds its
// recipient key.
func (Sandbox) GoogleOpener() googlepay.Opener { openers(); return googleOpener }

// AppleSession is a test-mode merchant session: the shape of Apple's
// (opaque to the merchant, who hands it to completeMerchantValidation), made
// here without asking Apple, valid for five minutes.
func (Sandbox) AppleSession(in applepay.SessionRequest, now time.Time) (json.RawMessage, error) {
	rnd := make([]byte, 32)
	rand.Read(rnd) // crypto/rand's Read never fails (it panics rather than return short)
	mid := sha256.Sum256([]byte(MerchantIdentifier))
	sig := sha256.Sum256(append(rnd, []byte(in.DomainName)...))
	return json.Marshal(map[string]any{
		"epochTimestamp":                 now.UnixMilli(),
		"expiresAt":                      now.Add(5 * time.Minute).UnixMilli(),
		"merchantSessionIdentifier":      "SSH" + strings.ToUpper(hex.EncodeToString(rnd[:16])),
		"nonce":                          hex.EncodeToString(rnd[16:20]),
		"merchantIdentifier":             strings.ToUpper(hex.EncodeToString(mid[:])),
		"domainName":                     in.DomainName,
		"displayName":                    in.DisplayName,
		"signature":                      hex.EncodeToString(sig[:]),
		"operationalAnalyticsIdentifier": in.DisplayName + ":" + strings.ToUpper(hex.EncodeToString(mid[:])),
		"retries":                        0,
		"pspId":                          strings.ToUpper(hex.EncodeToString(mid[:])),
		"sandbox":                        true,
	})
}

// AppleToken is a token signed by the sandbox's chain now, of number
// (defaultCard when ""), for value minor units of currency (ISO 4217
// alpha), with a random cryptogram (3DSecure) or none (EMV). A currency
// without an Apple Pay numeric code is refused (Invalid, amount.currency).
func (Sandbox) AppleToken(number string, value int64, currency string, cryptogram bool) (string, error) {
	numeric, ok := applepay.NumericCode(currency)
	if !ok {
		return "", apierr.Invalidf("amount.currency", "Apple Pay tokens of the sandbox are made in the currencies the platform takes; %s is not one", currency)
	}
	return AppleToken(SandboxSigner(), AppleCard{Number: cardOr(number), Expiry: cardExpiry, Amount: value,
		CurrencyCode: numeric, Cryptogram: newCryptogram(cryptogram)})
}

// GoogleToken is a token of the sandbox gateway issued now for the account
// (its gatewayMerchantId), of number (defaultCard when ""), with a random
// cryptogram (CRYPTOGRAM_3DS) or none (PAN_ONLY).
func (Sandbox) GoogleToken(number, accountID string, cryptogram bool, now time.Time) (string, error) {
	return GoogleToken(GoogleCard{Number: cardOr(number), ExpiryMonth: int(cardExpiry.Month()), ExpiryYear: cardExpiry.Year(),
		Cryptogram: newCryptogram(cryptogram), GatewayMerchantID: accountID}, now)
}

func cardOr(number string) string {
	if number == "" {
		return defaultCard
	}
	return number
}

func newCryptogram(want bool) string {
	if !want {
		return ""
	}
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

package walletpay

import (
	"crypto/rand"
	"encoding/base64"
	"time"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/pay/walletpay/applepay"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/sandbox/paytokens"
)

// SandboxAppleTokenRequest is the body of POST
// /test-helpers/wallet-tokens/applepay: the token a device would make for
// the sandbox's merchant.
type SandboxAppleTokenRequest struct {
	Number     *string        `json:"number" maxlen:"19"` // a test card; default 4111111111111111
	Amount     *AmountRequest `json:"amount"`
	Cryptogram *bool          `json:"cryptogram"` // default true (3DSecure); false: an EMV token
}

// SandboxGoogleTokenRequest is the body of POST
// /test-helpers/wallet-tokens/googlepay.
type SandboxGoogleTokenRequest struct {
	Number     *string `json:"number" maxlen:"19"`
	Cryptogram *bool   `json:"cryptogram"` // default true (CRYPTOGRAM_3DS); false: PAN_ONLY
}

// SandboxToken answers both: the token string the merchant's page would
// get (Apple's paymentData JSON; Google's tokenizationData.token).
type SandboxToken struct {
	Token string `json:"token"`
}

// KindSandboxToken is its resource kind.
const KindSandboxToken = "sandbox_wallet_token"

// sandboxExpiry is the sandbox tokens' card expiry.
var sandboxExpiry = time.Date(2030, 12, 31, 0, 0, 0, 0, time.UTC)

// sandboxNumber is the test card to put in a sandbox token: 4111 1111
// 1111 1111 when none is sent; one sent empty is refused like any other
// that is not a test card (an optional field is left out, not blank).
func sandboxNumber(n *string) (string, error) {
	if n == nil {
		return "4111111111111111", nil
	}
	if !cards.Luhn(*n) || cards.Brand(*n) == "" {
		return "", apierr.Invalidf("number", "number must be a visa, mc or amex test card number (digits, passing Luhn)")
	}
	return *n, nil
}

func cryptogram(want *bool) string {
	if want != nil && !*want {
		return ""
	}
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// SandboxAppleToken builds an Apple Pay token signed by the sandbox's chain
// now, for POST /v1/applepay/decode with a test key. Errors: Invalid.
func (s *Service) SandboxAppleToken(in SandboxAppleTokenRequest) (*SandboxToken, error) {
	number, err := sandboxNumber(in.Number)
	if err != nil {
		return nil, err
	}
	switch {
	case in.Amount == nil:
		return nil, apierr.Missing("amount")
	case in.Amount.Value == nil:
		return nil, apierr.Missing("amount.value")
	case in.Amount.Currency == nil:
		return nil, apierr.Missing("amount.currency")
	case *in.Amount.Value < 1 || *in.Amount.Value > money.MaxMinor:
		return nil, apierr.Invalidf("amount.value", "amount.value must be an integer from 1 to %d (minor units of amount.currency)", money.MaxMinor)
	}
	if _, err := money.ParseCurrencyField("amount.currency", *in.Amount.Currency); err != nil {
		return nil, err
	}
	numeric, ok := applepay.NumericCode(*in.Amount.Currency)
	if !ok {
		return nil, apierr.Invalidf("amount.currency", "Apple Pay tokens of the sandbox are made in the currencies the platform takes; %s is not one", *in.Amount.Currency)
	}
	tok, err := paytokens.AppleToken(paytokens.SandboxSigner(), paytokens.AppleCard{Number: number, Expiry: sandboxExpiry,
		Amount: *in.Amount.Value, CurrencyCode: numeric, Cryptogram: cryptogram(in.Cryptogram)})
	if err != nil {
		return nil, apierr.Wrap("walletpay.SandboxAppleToken", apierr.Internal, err)
	}
	return &SandboxToken{Token: tok}, nil
}

// SandboxGoogleToken builds a Google Pay token of the sandbox for the
// caller's account, for POST /v1/googlepay/decode with a test key.
func (s *Service) SandboxGoogleToken(c Caller, in SandboxGoogleTokenRequest) (*SandboxToken, error) {
	number, err := sandboxNumber(in.Number)
	if err != nil {
		return nil, err
	}
	tok, err := paytokens.GoogleToken(paytokens.GoogleCard{Number: number, ExpiryMonth: int(sandboxExpiry.Month()), ExpiryYear: sandboxExpiry.Year(),
		Cryptogram: cryptogram(in.Cryptogram), GatewayMerchantID: c.AccountID}, s.clock())
	if err != nil {
		return nil, apierr.Wrap("walletpay.SandboxGoogleToken", apierr.Internal, err)
	}
	return &SandboxToken{Token: tok}, nil
}

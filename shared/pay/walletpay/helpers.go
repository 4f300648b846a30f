package walletpay

import (
	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// AppleTestTokenRequest is the body of POST
// /test-helpers/wallet-tokens/applepay: the token a device would make for
// the test wallets' merchant.
type AppleTestTokenRequest struct {
	Number     *string        `json:"number" maxlen:"19"` // a test card; default the test wallets'
	Amount     *AmountRequest `json:"amount"`
	Cryptogram *bool          `json:"cryptogram"` // default true (3DSecure); false: an EMV token
}

// GoogleTestTokenRequest is the body of POST
// /test-helpers/wallet-tokens/googlepay.
type GoogleTestTokenRequest struct {
	Number     *string `json:"number" maxlen:"19"`
	Cryptogram *bool   `json:"cryptogram"` // default true (CRYPTOGRAM_3DS); false: PAN_ONLY
}

// TestToken answers both: the token string the merchant's page would
// get (Apple's paymentData JSON; Google's tokenizationData.token).
type TestToken struct {
	Token string `json:"token"`
}

// KindTestToken is its resource kind.
const KindTestToken = "sandbox_wallet_token"

// tokenNumber is the card to put in a test token: "" (the test wallets'
// default card) when none is sent; one sent empty is refused like
// any other that is not a card number (an optional field is left out, not
// blank).
func tokenNumber(n *string) (string, error) {
	if n == nil {
		return "", nil
	}
	if !cards.Luhn(*n) || cards.Brand(*n) == "" {
		return "", apierr.Invalidf("number", "number must be a visa, mc or amex test card number (digits, passing Luhn)")
	}
	return *n, nil
}

// withCryptogram is a token's cryptogram choice: with one unless false is sent.
func withCryptogram(want *bool) bool { return want == nil || *want }

// AppleTestToken builds an Apple Pay token of the test wallets now, for
// POST /v1/applepay/decode with a test key. Errors: Invalid.
func (s *Service) AppleTestToken(in AppleTestTokenRequest) (*TestToken, error) {
	number, err := tokenNumber(in.Number)
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
	// The test wallets refuse a currency they cannot put in a token.
	tok, err := s.test.AppleToken(number, *in.Amount.Value, *in.Amount.Currency, withCryptogram(in.Cryptogram))
	if err != nil {
		return nil, apierr.Wrap("walletpay.AppleTestToken", apierr.Internal, err)
	}
	return &TestToken{Token: tok}, nil
}

// GoogleTestToken builds a Google Pay token of the test wallets for the
// caller's account, for POST /v1/googlepay/decode with a test key.
func (s *Service) GoogleTestToken(c Caller, in GoogleTestTokenRequest) (*TestToken, error) {
	number, err := tokenNumber(in.Number)
	if err != nil {
		return nil, err
	}
	tok, err := s.test.GoogleToken(number, c.AccountID, withCryptogram(in.Cryptogram), s.clock())
	if err != nil {
		return nil, apierr.Wrap("walletpay.GoogleTestToken", apierr.Internal, err)
	}
	return &TestToken{Token: tok}, nil
}

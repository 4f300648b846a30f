package paytokens_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/pay/walletpay"
	"github.com/paygate/paygate/shared/pay/walletpay/applepay"
	"github.com/paygate/paygate/shared/pay/walletpay/googlepay"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/sandbox/paytokens"
)

// The sandbox is walletpay's test wallets.
var _ walletpay.TestWallets = paytokens.New()

// TestAppleTokenOpens: a test helper's Apple Pay token opens with the
// sandbox's opener and carries what was asked (the default card when none).
func TestAppleTokenOpens(t *testing.T) {
	s := paytokens.New()
	for _, c := range []struct {
		number, want string
		cryptogram   bool
	}{{"", "4111111111111111", true}, {"5555555555554444", "5555555555554444", false}} {
		tok, err := s.AppleToken(c.number, 2500, "EUR", c.cryptogram)
		require.NoError(t, err)
		pd, err := applepay.Parse(tok)
		require.NoError(t, err)
		d, err := s.AppleOpener().Open(pd, time.Now())
		require.NoError(t, err)
		assert.Equal(t, c.want, d.ApplicationPrimaryAccountNumber)
		assert.Equal(t, int64(2500), d.TransactionAmount)
		assert.Equal(t, "978", d.CurrencyCode)
		assert.Equal(t, c.cryptogram, d.PaymentData.OnlinePaymentCryptogram != "")
		month, year, _ := d.ExpiryMonthYear()
		assert.Equal(t, [2]int{12, 2030}, [2]int{month, year})
	}
}

// TestAppleTokenCurrency: a currency Apple Pay has no code for is the
// helper's 400 on amount.currency.
func TestAppleTokenCurrency(t *testing.T) {
	_, err := paytokens.New().AppleToken("", 100, "XXX", true)
	e := apierr.As(err)
	require.Equal(t, apierr.Invalid, e.Kind)
	assert.Equal(t, "amount.currency", e.Param)
	assert.Equal(t, "Apple Pay tokens of the sandbox are made in the currencies the platform takes; XXX is not one", e.Message)
}

// TestGoogleTokenOpens: a test helper's Google Pay token opens with the
// sandbox's opener, for the account it was made for.
func TestGoogleTokenOpens(t *testing.T) {
	s := paytokens.New()
	now := time.Now()
	tok, err := s.GoogleToken("", "acct_1", true, now)
	require.NoError(t, err)
	pt, err := googlepay.Parse(tok)
	require.NoError(t, err)
	m, err := s.GoogleOpener().Open(pt, now)
	require.NoError(t, err)
	assert.Equal(t, "acct_1", m.GatewayMerchantID)
	assert.Equal(t, "4111111111111111", m.PaymentMethodDetails.PAN)
	assert.Equal(t, "CRYPTOGRAM_3DS", m.PaymentMethodDetails.AuthMethod)
	assert.Equal(t, 2030, m.PaymentMethodDetails.ExpirationYear)
}

// TestAppleSession: a test merchant session has Apple's shape and says it
// is the sandbox's.
func TestAppleSession(t *testing.T) {
	now := time.Now()
	raw, err := paytokens.New().AppleSession(applepay.SessionRequest{DomainName: "shop.example.com", DisplayName: "Shop"}, now)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	assert.Equal(t, "shop.example.com", m["domainName"])
	assert.Equal(t, "Shop", m["displayName"])
	assert.Equal(t, float64(now.Add(5*time.Minute).UnixMilli()), m["expiresAt"])
	assert.Equal(t, true, m["sandbox"])
	assert.Regexp(t, `^SSH[0-9A-F]{32}$`, m["merchantSessionIdentifier"])
}

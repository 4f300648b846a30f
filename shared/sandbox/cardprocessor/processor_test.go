package cardprocessor

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/platform/apierr"
)

var now = time.Date(2024, 3, 15, 12, 0, 0, 0, time.UTC)

func card(n string) cards.Card {
	return cards.Card{Number: n, ExpiryMonth: "03", ExpiryYear: "2030", CVC: "737"}
}

func TestTestCards(t *testing.T) {
	cases := []struct {
		number string
		result cards.Result
		flow   cards.Flow
		brand  string
	}{
		{"4111111111111111", cards.Authorised, cards.FlowNone, "visa"},
		{"5555555555554444", cards.Authorised, cards.FlowNone, "mc"},
		{"4917610000000000", cards.IdentifyShopper, cards.FlowFrictionless, "visa"},
		{"5454545454545454", cards.IdentifyShopper, cards.FlowChallenge, "mc"},
		{"4212345678901237", cards.RedirectShopper, cards.FlowRedirect, "visa"},
		{"4000000000000010", cards.Refused, cards.FlowNone, "visa"},
		{"4000000000000002", cards.Error, cards.FlowNone, "visa"},
		{"4000020000000000", cards.Refused, cards.FlowNone, "visa"},
	}
	for _, c := range cases {
		out, err := AuthoriseCard(card(c.number), now)
		require.NoError(t, err, c.number)
		assert.Equal(t, c.result, out.Result, c.number)
		assert.Equal(t, c.flow, out.Flow, c.number)
		assert.Equal(t, c.brand, out.Brand, c.number)
		assert.Equal(t, c.number[len(c.number)-4:], out.Last4)
	}
	amex := card("370000000000002")
	amex.CVC = "7373"
	out, err := AuthoriseCard(amex, now)
	require.NoError(t, err)
	assert.Equal(t, cards.Authorised, out.Result)
	assert.Equal(t, "amex", out.Brand)
}

func TestHolderNames(t *testing.T) {
	for name, want := range map[string]string{"DECLINED": "Refused", "CARD_EXPIRED": "Expired Card", "BLOCK_CARD": "Blocked Card", "ERROR": "Acquirer Error"} {
		c := card("4111111111111111")
		c.HolderName = name
		out, err := AuthoriseCard(c, now)
		require.NoError(t, err)
		assert.Equal(t, want, out.RefusalReason)
		assert.NotEqual(t, cards.Authorised, out.Result)
	}
}

func TestChecks(t *testing.T) {
	bad := []struct {
		mut   func(*cards.Card)
		param string
		code  string
	}{
		{func(c *cards.Card) { c.Number = "4111111111111112" }, "number", "invalid_number"},
		{func(c *cards.Card) { c.Number = "41111" }, "number", "invalid_number"},
		{func(c *cards.Card) { c.Number = "6011111111111117" }, "number", "card_not_supported"},
		{func(c *cards.Card) { c.ExpiryMonth = "13" }, "expiryMonth", "invalid_expiry_month"},
		{func(c *cards.Card) { c.ExpiryMonth = "0" }, "expiryMonth", "invalid_expiry_month"},
		{func(c *cards.Card) { c.ExpiryMonth, c.ExpiryYear = "02", "2024" }, "expiryYear", "expired_card"},
		{func(c *cards.Card) { c.ExpiryYear = "20x0" }, "expiryYear", "invalid_expiry_year"},
		{func(c *cards.Card) { c.CVC = "73" }, "cvc", "invalid_cvc"},
		{func(c *cards.Card) { c.CVC = "7373" }, "cvc", "invalid_cvc"},
	}
	for _, b := range bad {
		c := card("4111111111111111")
		b.mut(&c)
		_, err := AuthoriseCard(c, now)
		require.Error(t, err)
		e := apierr.As(err)
		assert.Equal(t, apierr.CardDeclined, e.Kind)
		assert.Equal(t, b.param, e.Param)
		assert.Equal(t, b.code, e.Code.Name())
	}
	// Valid through the end of the expiry month.
	c := card("4111111111111111")
	c.ExpiryMonth, c.ExpiryYear = "03", "24"
	_, err := AuthoriseCard(c, now)
	assert.NoError(t, err)
	// A card entered now needs its CVC (a saved one is charged through
	// AuthoriseStored, without).
	c = card("4111111111111111")
	c.CVC = ""
	_, err = AuthoriseCard(c, now)
	assert.Equal(t, "invalid_cvc", apierr.As(err).Code.Name())
}

func TestWalletsAnd3DS(t *testing.T) {
	out, ok := AuthoriseWallet(cards.ApplePay, "test_applepay_authorised")
	assert.True(t, ok)
	assert.Equal(t, cards.Authorised, out.Result)
	out, ok = AuthoriseWallet(cards.GooglePay, "test_googlepay_refused")
	assert.True(t, ok)
	assert.Equal(t, cards.Refused, out.Result)
	_, ok = AuthoriseWallet(cards.GooglePay, "test_applepay_authorised")
	assert.False(t, ok)

	assert.Equal(t, cards.Authorised, AfterFingerprint(cards.FlowFrictionless).Result)
	assert.Equal(t, cards.ChallengeShopper, AfterFingerprint(cards.FlowChallenge).Result)
	assert.Equal(t, cards.Authorised, ChallengeWithPassword("password").Result)
	assert.Equal(t, cards.Refused, ChallengeWithPassword("nope").Result)
	assert.Equal(t, cards.Cancelled, AfterChallenge("U").Result)
}

func TestProfiles(t *testing.T) {
	for number, want := range map[string]cards.Profile{
		"4111111111111111": ProfileAuthorised, "4111 1111 1111 1111": ProfileAuthorised, "4917610000000000": ProfileFrictionless,
		"5454545454545454": ProfileChallenge, "4212345678901237": ProfileRedirect, "4000000000000341": ProfileInsufficientFunds,
		"4000020000000000": ProfileUnknown,
	} {
		assert.Equal(t, want, ProfileOf(number), number)
	}
	// The insufficient-funds card authorises its first payment, which may
	// save it; its profile goes with the outcome.
	out, err := AuthoriseCard(card("4000000000000341"), now)
	require.NoError(t, err)
	assert.Equal(t, cards.Authorised, out.Result)
	assert.Empty(t, out.RefusalReason)
	assert.Equal(t, ProfileInsufficientFunds, out.Profile)
}

func TestAuthoriseStored(t *testing.T) {
	saved := func(p cards.Profile) cards.SavedCard {
		return cards.SavedCard{Profile: p, Brand: "visa", Last4: "0000", ExpiryMonth: "03", ExpiryYear: "2030"}
	}
	cases := []struct {
		profile    cards.Profile
		offSession bool
		result     cards.Result
		flow       cards.Flow
	}{
		{ProfileAuthorised, false, cards.Authorised, cards.FlowNone},
		{ProfileAuthorised, true, cards.Authorised, cards.FlowNone},
		{ProfileFrictionless, false, cards.IdentifyShopper, cards.FlowFrictionless},
		{ProfileFrictionless, true, cards.Authorised, cards.FlowNone},
		{ProfileChallenge, false, cards.IdentifyShopper, cards.FlowChallenge},
		{ProfileChallenge, true, cards.Authorised, cards.FlowNone},
		{ProfileRedirect, false, cards.RedirectShopper, cards.FlowRedirect},
		{ProfileRedirect, true, cards.Authorised, cards.FlowNone},
		{ProfileInsufficientFunds, false, cards.Refused, cards.FlowNone},
		{ProfileInsufficientFunds, true, cards.Refused, cards.FlowNone},
		{ProfileError, true, cards.Error, cards.FlowNone},
		{"no-such-profile", true, cards.Refused, cards.FlowNone},
	}
	for _, c := range cases {
		out, err := AuthoriseStored(saved(c.profile), c.offSession, now)
		require.NoError(t, err)
		assert.Equal(t, c.result, out.Result, "%s off_session=%v", c.profile, c.offSession)
		assert.Equal(t, c.flow, out.Flow, "%s off_session=%v", c.profile, c.offSession)
		assert.Equal(t, "0000", out.Last4)
		if c.offSession {
			assert.NotContains(t, []cards.Result{cards.IdentifyShopper, cards.ChallengeShopper, cards.RedirectShopper}, out.Result, "off-session never waits for the shopper")
		}
	}
	out, _ := AuthoriseStored(saved(ProfileInsufficientFunds), true, now)
	assert.Equal(t, InsufficientFundsReason, out.RefusalReason)
	assert.Equal(t, InsufficientFundsCode, out.RefusalReasonCode)

	declined := saved(ProfileAuthorised)
	declined.HolderName = "declined"
	out, _ = AuthoriseStored(declined, true, now)
	assert.Equal(t, cards.Refused, out.Result, "holder names still force their outcome")

	expired := saved(ProfileAuthorised)
	expired.ExpiryMonth, expired.ExpiryYear = "02", "2024"
	_, err := AuthoriseStored(expired, true, now)
	require.Error(t, err)
	assert.Equal(t, "expired_card", apierr.As(err).Code.Name())
	assert.Equal(t, "expiryYear", apierr.As(err).Param)
}

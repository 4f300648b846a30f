package cardprocessor

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// TestNetworkTokens: a token with a cryptogram authorises cards enrolled in
// 3-D Secure without the shopper; without one, the card's own flow applies.
// Refusals and card checks are the card's; no CVC is asked for.
func TestNetworkTokens(t *testing.T) {
	cases := []struct {
		number     string
		cryptogram bool
		result     cards.Result
	}{
		{"4111111111111111", true, cards.Authorised},
		{"4111111111111111", false, cards.Authorised},
		{"370000000000002", true, cards.Authorised},
		{"4917610000000000", true, cards.Authorised},
		{"5454545454545454", true, cards.Authorised},
		{"4212345678901237", true, cards.Authorised},
		{"5454545454545454", false, cards.IdentifyShopper},
		{"4212345678901237", false, cards.RedirectShopper},
		{"4000000000000010", true, cards.Refused},
		{"4000000000000002", true, cards.Error},
	}
	for _, c := range cases {
		out, err := AuthoriseNetworkToken(cards.Card{Number: c.number, ExpiryMonth: "12", ExpiryYear: "2030", HolderName: "DECLINED"}, c.cryptogram, now)
		require.NoError(t, err, c.number)
		assert.Equal(t, c.result, out.Result, "%s cryptogram %v", c.number, c.cryptogram)
		assert.Equal(t, c.number[len(c.number)-4:], out.Last4)
	}
	_, err := AuthoriseNetworkToken(cards.Card{Number: "4111111111111112", ExpiryMonth: "12", ExpiryYear: "2030"}, true, now)
	assert.Equal(t, "invalid_number", apierr.As(err).Code.Name())
	_, err = AuthoriseNetworkToken(cards.Card{Number: "4111111111111111", ExpiryMonth: "01", ExpiryYear: "2024"}, true, now)
	assert.Equal(t, "expired_card", apierr.As(err).Code.Name())
}

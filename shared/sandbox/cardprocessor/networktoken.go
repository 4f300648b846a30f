package cardprocessor

import (
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/cards"
)

// AuthoriseNetworkToken runs a wallet's network token: the device account
// number (DPAN) of an Apple Pay or Google Pay token with its expiry and, when
// the wallet authenticated the shopper on the device, its cryptogram. The
// sandbox answers by the number as for a card (the test card table; holder
// names do not apply: a wallet sends none). A cryptogram is the
// authentication 3-D Secure would ask for, so a card enrolled in 3-D Secure
// authorises without the shopper; without one (Google Pay's PAN_ONLY) the
// card's own flow applies, 3-D Secure included. Errors: as AuthoriseCard,
// without the CVC's (a network token has none).
func AuthoriseNetworkToken(c cards.Card, cryptogram bool, now time.Time) (cards.Outcome, error) {
	num := strings.ReplaceAll(c.Number, " ", "")
	// The card checks (Luhn, brand, expiry) are the card's; a token has no
	// CVC, so the CVC rule is given the length the brand asks for.
	c.HolderName, c.CVC = "", "000"
	if cards.Brand(num) == "amex" {
		c.CVC = "0000"
	}
	out, err := AuthoriseCard(c, now)
	if err != nil {
		return cards.Outcome{}, err
	}
	if cryptogram {
		switch out.Result {
		case cards.IdentifyShopper, cards.ChallengeShopper, cards.RedirectShopper:
			out.Result, out.Flow = cards.Authorised, cards.FlowNone
		}
	}
	return out, nil
}

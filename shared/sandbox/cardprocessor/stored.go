package cardprocessor

import (
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/cards"
)

// AuthoriseStored runs a charge of a saved card at now. offSession is a
// merchant-initiated charge without the shopper (a subscription's renewal,
// an unscheduled top-up): it never asks for 3-D Secure or a redirect, so
// the answer is Authorised, Refused or Error. With the shopper present the
// card's row runs as on a first payment (3-D Secure and redirects
// included). A card whose Profile refuses saved charges (4000 0000 0000
// 0341) is Refused "Not enough balance" either way. Errors: card_error
// naming expiryMonth or expiryYear (an expired card), as AuthoriseCard.
func AuthoriseStored(c cards.SavedCard, offSession bool, now time.Time) (cards.Outcome, error) {
	if err := cards.CheckExpiry(c.ExpiryMonth, c.ExpiryYear, now); err != nil {
		return cards.Outcome{}, err
	}
	out := cards.Outcome{Brand: c.Brand, Last4: c.Last4, Profile: c.Profile}
	if p, ok := holderOutcomes[strings.ToUpper(strings.TrimSpace(c.HolderName))]; ok {
		return with(out, p), nil
	}
	p, ok := profiles[c.Profile]
	if !ok {
		p = profiles[ProfileUnknown]
	}
	switch {
	case p.savedRefused:
		out.Result, out.RefusalReason, out.RefusalReasonCode = cards.Refused, p.reason, p.code
		return out, nil
	case offSession && p.result != cards.Refused && p.result != cards.Error:
		// Authenticated when it was saved; a merchant-initiated charge is
		// exempt from 3-D Secure.
		return with(out, profiles[ProfileAuthorised]), nil
	}
	return with(out, p), nil
}

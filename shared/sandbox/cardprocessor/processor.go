// Package processor is the sandbox card processor behind test-mode checkout:
// it answers per documented test card, holder name and wallet token, the way
// Adyen's test environment does. It holds no state; the checkout package keeps
// the payment's stage between calls.
//
// Test cards (any future expiry, any CVC of the right length: 3 digits, Amex 4):
//
//	number               brand  outcome
//	4111 1111 1111 1111  visa   Authorised
//	5555 5555 5555 4444  mc     Authorised
//	3700 0000 0000 002   amex   Authorised
//	4917 6100 0000 0000  visa   3DS2 frictionless: IdentifyShopper (fingerprint), then Authorised
//	5454 5454 5454 5454  mc     3DS2 challenge: IdentifyShopper, then ChallengeShopper;
//	                            passed with password "password" (or transStatus Y), else Refused
//	4212 3456 7890 1237  visa   RedirectShopper, then Authorised with the redirectResult
//	4000 0000 0000 0010  visa   Refused ("Refused", code 2)
//	4000 0000 0000 0002  visa   Error ("Acquirer Error", code 4)
//	4000 0000 0000 0341  visa   Authorised, and may be saved; every charge of its saved
//	                            card token is Refused ("Not enough balance", code 12:
//	                            insufficient funds)
//	any other valid card        Refused ("Not a sandbox test card", code 0)
//
// Holder names force an outcome on any test card: DECLINED (Refused, 2),
// CARD_EXPIRED (Refused "Expired Card", 6), BLOCK_CARD (Refused "Blocked
// Card", 5), ERROR (Error "Acquirer Error", 4).
//
// Wallet tokens: applePayToken test_applepay_authorised / test_applepay_refused,
// googlePayToken test_googlepay_authorised / test_googlepay_refused.
//
// Checks before any outcome: Luhn, expiry month 1-12 and not in the past (a
// card is valid through the last day of its expiry month), CVC digits.
//
// Saved cards (stored.go): the sandbox never keeps a card number or CVC. A
// saved card is its brand, last four digits, expiry, holder name and its
// Profile, the name of the test card's outcome row above, which is all the
// processor needs to replay that card's outcome on a later charge
// (AuthoriseStored). A charge with the shopper present runs the row as a
// first payment does (3-D Secure and redirects included); an off-session
// (merchant-initiated) charge never asks for the shopper: cards enrolled in
// 3-D Secure or redirected authorise without it, as the exemption for
// merchant-initiated transactions allows, and the answer is Authorised or
// Refused.
package cardprocessor

import (
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/cards"
)

// ChallengePassword passes the sandbox 3DS2 challenge.
const ChallengePassword = "password"

type profile struct {
	result cards.Result
	flow   cards.Flow
	reason string
	code   string
	// savedRefused: charges of the saved card are refused with reason and
	// code (the first payment authorises).
	savedRefused bool
}

// The profiles, one per outcome row of the test card table.
const (
	ProfileAuthorised        cards.Profile = "authorised"
	ProfileFrictionless      cards.Profile = "3ds2_frictionless"
	ProfileChallenge         cards.Profile = "3ds2_challenge"
	ProfileRedirect          cards.Profile = "redirect"
	ProfileRefused           cards.Profile = "refused"
	ProfileError             cards.Profile = "error"
	ProfileInsufficientFunds cards.Profile = "saved_card_insufficient_funds"
	ProfileUnknown           cards.Profile = "not_a_test_card"
)

// InsufficientFunds is the refusal of a charge the card's balance cannot
// cover, as Adyen words it.
const (
	InsufficientFundsReason = "Not enough balance"
	InsufficientFundsCode   = "12"
)

var profiles = map[cards.Profile]profile{
	ProfileAuthorised:        {result: cards.Authorised},
	ProfileFrictionless:      {result: cards.IdentifyShopper, flow: cards.FlowFrictionless},
	ProfileChallenge:         {result: cards.IdentifyShopper, flow: cards.FlowChallenge},
	ProfileRedirect:          {result: cards.RedirectShopper, flow: cards.FlowRedirect},
	ProfileRefused:           {result: cards.Refused, reason: "Refused", code: "2"},
	ProfileError:             {result: cards.Error, reason: "Acquirer Error", code: "4"},
	ProfileInsufficientFunds: {result: cards.Authorised, savedRefused: true, reason: InsufficientFundsReason, code: InsufficientFundsCode},
	ProfileUnknown:           {result: cards.Refused, reason: "Not a sandbox test card", code: "0"},
}

var testCards = map[string]cards.Profile{
	"4111111111111111": ProfileAuthorised,
	"5555555555554444": ProfileAuthorised,
	"370000000000002":  ProfileAuthorised,
	"4917610000000000": ProfileFrictionless,
	"5454545454545454": ProfileChallenge,
	"4212345678901237": ProfileRedirect,
	"4000000000000010": ProfileRefused,
	"4000000000000002": ProfileError,
	"4000000000000341": ProfileInsufficientFunds,
}

// ProfileOf is the outcome profile of a card number (spaces allowed):
// ProfileUnknown for a number that is not a test card.
func ProfileOf(number string) cards.Profile {
	if p, ok := testCards[strings.ReplaceAll(number, " ", "")]; ok {
		return p
	}
	return ProfileUnknown
}

var holderOutcomes = map[string]profile{
	"DECLINED":     {result: cards.Refused, reason: "Refused", code: "2"},
	"CARD_EXPIRED": {result: cards.Refused, reason: "Expired Card", code: "6"},
	"BLOCK_CARD":   {result: cards.Refused, reason: "Blocked Card", code: "5"},
	"ERROR":        {result: cards.Error, reason: "Acquirer Error", code: "4"},
}

// AuthoriseCard runs a card's first call.
func AuthoriseCard(c cards.Card, now time.Time) (cards.Outcome, error) {
	brand, err := cards.Validate(c, now)
	if err != nil {
		return cards.Outcome{}, err
	}
	num := strings.ReplaceAll(c.Number, " ", "")
	out := cards.Outcome{Brand: brand, Last4: num[len(num)-4:], Profile: ProfileOf(num)}
	if p, ok := holderOutcomes[strings.ToUpper(strings.TrimSpace(c.HolderName))]; ok {
		return with(out, p), nil
	}
	return with(out, profiles[out.Profile]), nil
}

func with(o cards.Outcome, p profile) cards.Outcome {
	o.Result, o.Flow = p.result, p.flow
	if p.result != cards.Authorised {
		o.RefusalReason, o.RefusalReasonCode = p.reason, p.code
	}
	return o
}

// AuthoriseWallet runs an Apple Pay or Google Pay sandbox token. ok is false
// for a token the sandbox does not know (a 400 for the caller).
func AuthoriseWallet(kind, token string) (cards.Outcome, bool) {
	out := cards.Outcome{Brand: "visa", Last4: "1111"}
	switch token {
	case "test_" + kind + "_authorised":
		out.Result = cards.Authorised
	case "test_" + kind + "_refused":
		out.Result, out.RefusalReason, out.RefusalReasonCode = cards.Refused, "Refused", "2"
	default:
		return cards.Outcome{}, false
	}
	return out, true
}

// AfterFingerprint is the answer once the device fingerprint is in.
func AfterFingerprint(f cards.Flow) cards.Outcome {
	if f == cards.FlowChallenge {
		return cards.Outcome{Result: cards.ChallengeShopper, Flow: f}
	}
	return cards.Outcome{Result: cards.Authorised}
}

// AfterChallenge maps a challenge's 3DS2 transStatus: Y (authenticated)
// authorises, N refuses, anything else means the shopper cancelled.
func AfterChallenge(transStatus string) cards.Outcome {
	switch transStatus {
	case "Y":
		return cards.Outcome{Result: cards.Authorised}
	case "N":
		return cards.Outcome{Result: cards.Refused, RefusalReason: "3D Not Authenticated", RefusalReasonCode: "11"}
	default:
		return cards.Outcome{Result: cards.Cancelled}
	}
}

// ChallengeWithPassword is the sandbox ACS: the right password is transStatus Y.
func ChallengeWithPassword(pw string) cards.Outcome {
	if pw == ChallengePassword {
		return AfterChallenge("Y")
	}
	return AfterChallenge("N")
}

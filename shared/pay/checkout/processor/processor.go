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
package processor

import (
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/platform/apierr"
)

// Result is an Adyen resultCode.
type Result string

const (
	Authorised       Result = "Authorised"
	Refused          Result = "Refused"
	Error            Result = "Error"
	Cancelled        Result = "Cancelled"
	IdentifyShopper  Result = "IdentifyShopper"
	ChallengeShopper Result = "ChallengeShopper"
	RedirectShopper  Result = "RedirectShopper"
)

// Flow is what a card needs after the first call.
type Flow string

const (
	FlowNone         Flow = ""
	FlowFrictionless Flow = "3ds2_frictionless"
	FlowChallenge    Flow = "3ds2_challenge"
	FlowRedirect     Flow = "redirect"
)

// ChallengePassword passes the sandbox 3DS2 challenge.
const ChallengePassword = "password"

// Card is unencrypted card data (test mode only).
type Card struct {
	Number, ExpiryMonth, ExpiryYear, CVC, HolderName string
}

// Outcome is the processor's answer.
type Outcome struct {
	Result            Result
	RefusalReason     string
	RefusalReasonCode string
	Brand             string
	Last4             string
	Flow              Flow
	// Profile is the card's outcome profile (cards only): what a saved
	// card keeps so later charges replay its outcome.
	Profile Profile
}

type profile struct {
	result Result
	flow   Flow
	reason string
	code   string
	// savedRefused: charges of the saved card are refused with reason and
	// code (the first payment authorises).
	savedRefused bool
}

// Profile names one row of the test card table (stored.go).
type Profile string

// The profiles, one per outcome row of the test card table.
const (
	ProfileAuthorised        Profile = "authorised"
	ProfileFrictionless      Profile = "3ds2_frictionless"
	ProfileChallenge         Profile = "3ds2_challenge"
	ProfileRedirect          Profile = "redirect"
	ProfileRefused           Profile = "refused"
	ProfileError             Profile = "error"
	ProfileInsufficientFunds Profile = "saved_card_insufficient_funds"
	ProfileUnknown           Profile = "not_a_test_card"
)

// InsufficientFunds is the refusal of a charge the card's balance cannot
// cover, as Adyen words it.
const (
	InsufficientFundsReason = "Not enough balance"
	InsufficientFundsCode   = "12"
)

var profiles = map[Profile]profile{
	ProfileAuthorised:        {result: Authorised},
	ProfileFrictionless:      {result: IdentifyShopper, flow: FlowFrictionless},
	ProfileChallenge:         {result: IdentifyShopper, flow: FlowChallenge},
	ProfileRedirect:          {result: RedirectShopper, flow: FlowRedirect},
	ProfileRefused:           {result: Refused, reason: "Refused", code: "2"},
	ProfileError:             {result: Error, reason: "Acquirer Error", code: "4"},
	ProfileInsufficientFunds: {result: Authorised, savedRefused: true, reason: InsufficientFundsReason, code: InsufficientFundsCode},
	ProfileUnknown:           {result: Refused, reason: "Not a sandbox test card", code: "0"},
}

var testCards = map[string]Profile{
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
func ProfileOf(number string) Profile {
	if p, ok := testCards[strings.ReplaceAll(number, " ", "")]; ok {
		return p
	}
	return ProfileUnknown
}

var holderOutcomes = map[string]profile{
	"DECLINED":     {result: Refused, reason: "Refused", code: "2"},
	"CARD_EXPIRED": {result: Refused, reason: "Expired Card", code: "6"},
	"BLOCK_CARD":   {result: Refused, reason: "Blocked Card", code: "5"},
	"ERROR":        {result: Error, reason: "Acquirer Error", code: "4"},
}

// cardError is a 400 card_error naming a logical card field (number,
// expiryMonth, expiryYear, cvc); callers map it to the request's field name.
func cardError(field string, code apierr.Code, format string, args ...any) *apierr.Error {
	return apierr.New(code, format, args...).WithParam(field)
}

// Brand returns the scheme brand of a number ("" when unsupported).
func Brand(number string) string {
	switch {
	case strings.HasPrefix(number, "34") || strings.HasPrefix(number, "37"):
		return "amex"
	case strings.HasPrefix(number, "4"):
		return "visa"
	case len(number) >= 2 && number[0] == '5' && number[1] >= '1' && number[1] <= '5':
		return "mc"
	case len(number) >= 4 && number[:4] >= "2221" && number[:4] <= "2720":
		return "mc"
	}
	return ""
}

// Luhn reports whether number passes the Luhn check.
func Luhn(number string) bool {
	if len(number) < 12 || len(number) > 19 {
		return false
	}
	sum := 0
	for i := 0; i < len(number); i++ {
		c := number[len(number)-1-i]
		if c < '0' || c > '9' {
			return false
		}
		d := int(c - '0')
		if i%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// Validate checks number, expiry and CVC at now and returns the brand.
func Validate(c Card, now time.Time) (string, error) {
	num := strings.ReplaceAll(c.Number, " ", "")
	if !Luhn(num) {
		return "", cardError("number", CodeInvalidNumber, "the card number is not a valid card number")
	}
	brand := Brand(num)
	if brand == "" {
		return "", cardError("number", CodeCardNotSupported, "only visa, mc and amex cards are supported")
	}
	if err := CheckExpiry(c.ExpiryMonth, c.ExpiryYear, now); err != nil {
		return "", err
	}
	want := 3
	if brand == "amex" {
		want = 4
	}
	if len(c.CVC) != want || strings.Trim(c.CVC, "0123456789") != "" {
		return "", cardError("cvc", CodeInvalidCVC, "the security code must have %d digits for %s", want, brand)
	}
	return brand, nil
}

// CheckExpiry checks an expiry month (1-12) and year (4 digits, or 2) at
// now: a card is valid through the last day of its expiry month. Errors are
// card_error naming expiryMonth or expiryYear (expired_card when past).
func CheckExpiry(monthText, yearText string, now time.Time) error {
	month, err := strconv.Atoi(monthText)
	if err != nil || month < 1 || month > 12 || len(monthText) > 2 {
		return cardError("expiryMonth", CodeInvalidExpiryMonth, "the expiry month must be 1 to 12")
	}
	year, err := strconv.Atoi(yearText)
	if err != nil || !(len(yearText) == 4 || len(yearText) == 2) {
		return cardError("expiryYear", CodeInvalidExpiryYear, "the expiry year must have 4 digits")
	}
	if year < 100 {
		year += 2000
	}
	now = now.UTC()
	if !now.Before(time.Date(year, time.Month(month)+1, 1, 0, 0, 0, 0, time.UTC)) {
		return cardError("expiryYear", CodeExpiredCard, "the card expired in %02d/%d", month, year)
	}
	if year > now.Year()+20 {
		return cardError("expiryYear", CodeInvalidExpiryYear, "the expiry year is too far in the future")
	}
	return nil
}

// AuthoriseCard runs a card's first call.
func AuthoriseCard(c Card, now time.Time) (Outcome, error) {
	brand, err := Validate(c, now)
	if err != nil {
		return Outcome{}, err
	}
	num := strings.ReplaceAll(c.Number, " ", "")
	out := Outcome{Brand: brand, Last4: num[len(num)-4:], Profile: ProfileOf(num)}
	if p, ok := holderOutcomes[strings.ToUpper(strings.TrimSpace(c.HolderName))]; ok {
		return out.with(p), nil
	}
	return out.with(profiles[out.Profile]), nil
}

func (o Outcome) with(p profile) Outcome {
	o.Result, o.Flow = p.result, p.flow
	if p.result != Authorised {
		o.RefusalReason, o.RefusalReasonCode = p.reason, p.code
	}
	return o
}

// Wallet kinds.
const (
	ApplePay  = "applepay"
	GooglePay = "googlepay"
)

// AuthoriseWallet runs an Apple Pay or Google Pay sandbox token. ok is false
// for a token the sandbox does not know (a 400 for the caller).
func AuthoriseWallet(kind, token string) (Outcome, bool) {
	out := Outcome{Brand: "visa", Last4: "1111"}
	switch token {
	case "test_" + kind + "_authorised":
		out.Result = Authorised
	case "test_" + kind + "_refused":
		out.Result, out.RefusalReason, out.RefusalReasonCode = Refused, "Refused", "2"
	default:
		return Outcome{}, false
	}
	return out, true
}

// AfterFingerprint is the answer once the device fingerprint is in.
func AfterFingerprint(f Flow) Outcome {
	if f == FlowChallenge {
		return Outcome{Result: ChallengeShopper, Flow: f}
	}
	return Outcome{Result: Authorised}
}

// AfterChallenge maps a challenge's 3DS2 transStatus: Y (authenticated)
// authorises, N refuses, anything else means the shopper cancelled.
func AfterChallenge(transStatus string) Outcome {
	switch transStatus {
	case "Y":
		return Outcome{Result: Authorised}
	case "N":
		return Outcome{Result: Refused, RefusalReason: "3D Not Authenticated", RefusalReasonCode: "11"}
	default:
		return Outcome{Result: Cancelled}
	}
}

// ChallengeWithPassword is the sandbox ACS: the right password is transStatus Y.
func ChallengeWithPassword(pw string) Outcome {
	if pw == ChallengePassword {
		return AfterChallenge("Y")
	}
	return AfterChallenge("N")
}

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
package processor

import (
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/apierr"
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
	// Stored cards were checked when saved and carry no CVC.
	Stored bool
}

// Outcome is the processor's answer.
type Outcome struct {
	Result            Result
	RefusalReason     string
	RefusalReasonCode string
	Brand             string
	Last4             string
	Flow              Flow
}

type profile struct {
	result Result
	flow   Flow
	reason string
	code   string
}

var testCards = map[string]profile{
	"4111111111111111": {result: Authorised},
	"5555555555554444": {result: Authorised},
	"370000000000002":  {result: Authorised},
	"4917610000000000": {result: IdentifyShopper, flow: FlowFrictionless},
	"5454545454545454": {result: IdentifyShopper, flow: FlowChallenge},
	"4212345678901237": {result: RedirectShopper, flow: FlowRedirect},
	"4000000000000010": {result: Refused, reason: "Refused", code: "2"},
	"4000000000000002": {result: Error, reason: "Acquirer Error", code: "4"},
}

var holderOutcomes = map[string]profile{
	"DECLINED":     {result: Refused, reason: "Refused", code: "2"},
	"CARD_EXPIRED": {result: Refused, reason: "Expired Card", code: "6"},
	"BLOCK_CARD":   {result: Refused, reason: "Blocked Card", code: "5"},
	"ERROR":        {result: Error, reason: "Acquirer Error", code: "4"},
}

// cardError is a 400 card_error naming a logical card field (number,
// expiryMonth, expiryYear, cvc); callers map it to the request's field name.
func cardError(field, code, format string, args ...any) *apierr.Error {
	e := apierr.New(apierr.CardDeclined, code, format, args...)
	e.Param = field
	return e
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
		return "", cardError("number", "invalid_number", "the card number is not a valid card number")
	}
	brand := Brand(num)
	if brand == "" {
		return "", cardError("number", "card_not_supported", "only visa, mc and amex cards are supported")
	}
	month, err := strconv.Atoi(c.ExpiryMonth)
	if err != nil || month < 1 || month > 12 || len(c.ExpiryMonth) > 2 {
		return "", cardError("expiryMonth", "invalid_expiry_month", "the expiry month must be 1 to 12")
	}
	year, err := strconv.Atoi(c.ExpiryYear)
	if err != nil || !(len(c.ExpiryYear) == 4 || len(c.ExpiryYear) == 2) {
		return "", cardError("expiryYear", "invalid_expiry_year", "the expiry year must have 4 digits")
	}
	if year < 100 {
		year += 2000
	}
	now = now.UTC()
	// Valid through the last day of the expiry month.
	if !now.Before(time.Date(year, time.Month(month)+1, 1, 0, 0, 0, 0, time.UTC)) {
		return "", cardError("expiryYear", "expired_card", "the card expired in %02d/%d", month, year)
	}
	if year > now.Year()+20 {
		return "", cardError("expiryYear", "invalid_expiry_year", "the expiry year is too far in the future")
	}
	if !c.Stored {
		want := 3
		if brand == "amex" {
			want = 4
		}
		if len(c.CVC) != want || strings.Trim(c.CVC, "0123456789") != "" {
			return "", cardError("cvc", "invalid_cvc", "the security code must have %d digits for %s", want, brand)
		}
	}
	return brand, nil
}

// AuthoriseCard runs a card's first call.
func AuthoriseCard(c Card, now time.Time) (Outcome, error) {
	brand, err := Validate(c, now)
	if err != nil {
		return Outcome{}, err
	}
	num := strings.ReplaceAll(c.Number, " ", "")
	out := Outcome{Brand: brand, Last4: num[len(num)-4:]}
	if p, ok := holderOutcomes[strings.ToUpper(strings.TrimSpace(c.HolderName))]; ok {
		return out.with(p), nil
	}
	p, ok := testCards[num]
	if !ok {
		p = profile{result: Refused, reason: "Not a sandbox test card", code: "0"}
	}
	return out.with(p), nil
}

func (o Outcome) with(p profile) Outcome {
	o.Result, o.Flow, o.RefusalReason, o.RefusalReasonCode = p.result, p.flow, p.reason, p.code
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

// Package cards is the card processor's port: what the areas (checkout,
// direct payments, recurring charges) ask of whoever authorises a card, and
// the card rules every operation checks before (Luhn, brand, expiry, CVC)
// with their codes. The sandbox processor (shared/sandbox/cardprocessor) is
// one adapter; a connection to an acquirer or a processor is another, chosen
// where the functions are wired (domain/connectors decides by the key's
// mode). Results and flows are Adyen's, the shapes the /v2 face answers in.
package cards

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"
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

// Wallet kinds a processor takes tokens of.
const (
	ApplePay  = "applepay"
	GooglePay = "googlepay"
)

// Card is card data as the shopper entered it (decrypted, never stored).
type Card struct {
	Number, ExpiryMonth, ExpiryYear, CVC, HolderName string
}

// Profile is the processor's own reference for a card, kept by a saved card
// so later charges reach the same card; opaque to everything but the
// processor that issued it (the sandbox names its test card's outcome row).
type Profile string

// SavedCard is a card as it is kept once saved: never its number or CVC.
type SavedCard struct {
	Profile     Profile
	Brand       string
	Last4       string
	ExpiryMonth string
	ExpiryYear  string
	HolderName  string
}

// Outcome is the processor's answer.
type Outcome struct {
	Result            Result
	RefusalReason     string
	RefusalReasonCode string
	Brand             string
	Last4             string
	Flow              Flow
	// Profile is the card's reference (cards only): what a saved card
	// keeps so later charges replay its outcome.
	Profile Profile
	// PSPReference is a remote processor's own reference of the payment:
	// kept on the payment, so its captures, cancels and refunds name it.
	PSPReference string
	// Reference is our reference of the payment as the processor echoes
	// it (Charge.Reference): what finds the payment of a step's result
	// that came back without our own token (a redirect's).
	Reference string
	// Action is a remote processor's step for the shopper (3-D Secure,
	// a redirect), relayed as it is; nil where the processor leaves the
	// step to checkout (the sandbox, its own issuer).
	Action *Action
	// Data is what the processor needs back with the step's result (its
	// paymentData): kept on the payment until the step is done.
	Data string
}

// Action is a remote processor's action for the shopper, in Adyen's shape
// (the /v2 face relays it, with its own paymentData in place of the
// processor's).
type Action struct {
	Type               string `json:"type"`
	Subtype            string `json:"subtype,omitempty"`
	Token              string `json:"token,omitempty"`
	PaymentData        string `json:"paymentData,omitempty"`
	AuthorisationToken string `json:"authorisationToken,omitempty"`
	PaymentMethodType  string `json:"paymentMethodType,omitempty"`
	URL                string `json:"url,omitempty"`
	Method             string `json:"method,omitempty"`
}

// ThreeDS are the 3-D Secure 2 endpoints the shopper's device is sent to:
// the issuer's method (device fingerprint) URL and its challenge (ACS) URL.
type ThreeDS struct {
	MethodURL    string
	ChallengeURL string
}

// Charge is the payment an authorisation is for, as the processor hears of
// it: a remote processor needs all of it; the sandbox reads the card alone.
type Charge struct {
	Account  string // our account: its connector serves the call
	Livemode bool
	// Key is the processor's idempotency key (OperationKey): a retry of our
	// operation is a retry of the processor's, so one authorisation at most.
	Key string
	// Reference is our payment's id: the processor's merchant reference.
	Reference        string
	Amount           int64 // minor units of Currency
	Currency         string
	ReturnURL        string // where a redirect brings the shopper back
	ShopperReference string // the shopper's reference, for stored cards
	// StoreCard is a shopper's request to save the card: a remote processor
	// saves it on its side too, and answers its reference (Outcome.Profile).
	StoreCard bool
	// ManualCapture is our payment's capture mode: manual, the processor
	// holds the authorisation until our capture reaches it; automatic, it
	// captures by itself (we send no capture for it).
	ManualCapture bool
	Now           time.Time
}

// Step is the shopper's side of a step an Outcome asked for, as the
// shopper's device reports it.
type Step struct {
	Asked Result // IdentifyShopper, ChallengeShopper or RedirectShopper
	Flow  Flow   // the flow the first answer named
	// TransStatus is a challenge's 3DS2 transStatus; ThreeDSCompInd is
	// whether the device fingerprint ran (Y, N, U).
	TransStatus    string
	ThreeDSCompInd string
	RedirectResult string // a redirect's result, as the issuer sent it back
	// PSPReference and Data are the Outcome's that asked for the step.
	PSPReference string
	Data         string
}

// OperationKey is the idempotency key a processor gets for operation op
// (an authorisation, a step) of our operation keyed key (the merchant's
// Idempotency-Key, or our payment's id where the merchant sent none) in
// account: the same operation retried gets the same key, another account's
// never does. A hash, so the merchant's key is never shown to the processor.
func OperationKey(account, key, op string) string {
	h := sha256.Sum256([]byte(account + "\x00" + key + "\x00" + op))
	return "pg-" + hex.EncodeToString(h[:16])
}

// Processor authorises cards. Calls that fail a card rule answer its
// card_error (codes.go); an outcome that is not Authorised is an answer,
// not an error. A remote processor that cannot be reached, or whose answer
// did not come, answers an apierr Unavailable error: nothing was recorded,
// and the same operation retried (the same Charge.Key) is the processor's
// retry too.
type Processor interface {
	// AuthoriseCard runs a card's first call.
	AuthoriseCard(ctx context.Context, ch Charge, c Card) (Outcome, error)
	// AuthoriseStored charges a saved card; offSession is a
	// merchant-initiated charge without the shopper (no 3-D Secure, no
	// redirect).
	AuthoriseStored(ctx context.Context, ch Charge, c SavedCard, offSession bool) (Outcome, error)
	// AuthoriseNetworkToken runs a wallet's network token (its device
	// account number), with the wallet's cryptogram when the shopper was
	// authenticated on the device.
	AuthoriseNetworkToken(ctx context.Context, ch Charge, c Card, cryptogram bool) (Outcome, error)
	// AuthoriseWallet runs an Apple Pay or Google Pay token as the
	// processor receives it; a token it cannot read is a
	// CodeInvalidWalletToken error.
	AuthoriseWallet(ctx context.Context, ch Charge, kind, token string) (Outcome, error)
	// Continue is the answer once the shopper's device has done the step
	// an outcome asked for (a fingerprint, a challenge, a redirect).
	Continue(ctx context.Context, ch Charge, s Step) (Outcome, error)
	// Reference is the Profile a saved card of number keeps (a card saved
	// before the vault kept its number; it is converted once).
	Reference(number string) Profile
	// ThreeDS is where 3-D Secure sends the shopper's device, for the
	// actions checkout builds (an Outcome without its own Action).
	ThreeDS() ThreeDS
	// Capture, Cancel and Refund tell the processor of a change to an
	// authorisation it made, once the change is committed (Modification
	// says why after, and how a change is never lost). nil: the processor
	// received it; an apierr Unavailable error: try again later; any other
	// error: it refused the change.
	Capture(ctx context.Context, m Modification) error
	Cancel(ctx context.Context, m Modification) error
	Refund(ctx context.Context, m Modification) error
}

// Modification is a capture, a cancel or a refund of an authorisation, as
// the processor hears of it. The payment's change is committed first, with
// a due entry that keeps the modification until the processor has
// received it (shared/pay/transactions): so a change that lost a race is
// never sent, and one whose call failed, or whose process died, is sent
// again by the sweeper. ID is the processor's idempotency key: a processor
// keeps one answer per ID, so a repeat is harmless.
type Modification struct {
	ID       string // the modification's own id, stable across repeats
	Payment  string // the authorisation's reference: the processor's pspReference
	Amount   int64  // minor units of Currency; a cancel's is the authorised amount
	Currency string
}

// ChallengeScreen is a processor that is its own issuer's challenge screen
// (the sandbox's ACS, served by checkout): the password the shopper typed
// decides the challenge.
type ChallengeScreen interface {
	ChallengeWithPassword(password string) Outcome
}

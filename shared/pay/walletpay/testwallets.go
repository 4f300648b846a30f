package walletpay

import (
	"encoding/json"
	"time"

	"github.com/paygate/paygate/shared/pay/walletpay/applepay"
	"github.com/paygate/paygate/shared/pay/walletpay/googlepay"
)

// TestWallets stands in for Apple Pay and Google Pay behind test keys: the
// wiring chooses it (the sandbox's, shared/sandbox/paytokens). It speaks
// only the wallets' own types (applepay, googlepay) and the standard
// library's, so its adapter needs nothing of this package.
type TestWallets interface {
	// AppleOpener verifies and decrypts test Apple Pay tokens (the root it
	// trusts, its processing keys).
	AppleOpener() applepay.Opener
	// GoogleOpener verifies and decrypts test Google Pay tokens (the root
	// keys it trusts, its recipient id and keys).
	GoogleOpener() googlepay.Opener
	// AppleSession is a test merchant session of Apple's shape, made
	// without asking Apple.
	AppleSession(in applepay.SessionRequest, now time.Time) (json.RawMessage, error)
	// AppleToken makes a test token as a device would, for the test helper:
	// of the card number ("" for its default test card), for value minor
	// units of currency (ISO 4217 alpha, one the platform takes), with a
	// cryptogram (3DSecure) or not (EMV). A refusal is an *apierr.Error.
	AppleToken(number string, value int64, currency string, cryptogram bool) (string, error)
	// GoogleToken makes a test token issued now for the account (its
	// gatewayMerchantId), of the card number ("" for its default test
	// card), with a cryptogram (CRYPTOGRAM_3DS) or not (PAN_ONLY).
	GoogleToken(number, accountID string, cryptogram bool, now time.Time) (string, error)
}

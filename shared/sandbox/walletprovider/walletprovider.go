// Package walletprovider is the sandbox phone wallet, the adapter of the
// phone-wallet provider's port (domain/phonewallet) that test keys'
// transactions reach: its shopper answers by the documented test phone
// number (docs/wallet.md, the OpenAPI description); any other number waits
// for the test helpers (confirm, decline) or the confirmation timeout. It
// holds KZT and USD.
package walletprovider

import (
	"time"

	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/domain/phonewallet"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// Test phone numbers of the sandbox wallet.
const (
	PhoneApprove      = "+77000000001" // confirms at once
	PhoneApproveLater = "+77000000002" // confirms after ApproveDelay
	PhoneDecline      = "+77000000003" // declines: FAILED, declined_by_shopper
	PhoneNoAnswer     = "+77000000004" // never answers: FAILED, confirmation_timeout after the timeout
	PhoneInsufficient = "+77000000005" // the wallet cannot pay: FAILED, insufficient_funds
)

// ApproveDelay is how long the "approves after a few seconds" shopper
// takes, by default.
const ApproveDelay = 3 * time.Second

var currencies = map[string]bool{"KZT": true, "USD": true}

// Sandbox is the sandbox wallet.
type Sandbox struct {
	approveDelay time.Duration
}

var _ phonewallet.Provider = Sandbox{}

// New is the sandbox wallet whose later-approving shopper takes
// approveDelay (0: ApproveDelay; tests and the crash test's server shorten
// it).
func New(approveDelay time.Duration) Sandbox {
	if approveDelay == 0 {
		approveDelay = ApproveDelay
	}
	return Sandbox{approveDelay: approveDelay}
}

// CheckCurrency takes KZT and USD.
func (Sandbox) CheckCurrency(currency string) error {
	if !currencies[currency] {
		return apierr.New(money.CodeCurrencyNotSupported, "the sandbox wallet holds KZT and USD only").WithParam("currency")
	}
	return nil
}

// Answer answers as the test phone's shopper.
func (s Sandbox) Answer(phone string, age time.Duration) (phonewallet.Answer, time.Duration) {
	switch phone {
	case PhoneApprove:
		return phonewallet.Approved, 0
	case PhoneApproveLater:
		if wait := s.approveDelay - age; wait > 0 {
			return phonewallet.Pending, wait
		}
		return phonewallet.Approved, 0
	case PhoneDecline:
		return phonewallet.Declined, 0
	case PhoneInsufficient:
		return phonewallet.InsufficientFunds, 0
	}
	return phonewallet.Pending, 0
}

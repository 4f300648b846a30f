// Package connectors decides, in one place, who serves a call that reaches
// an outside system (the card processor, the payout processor, the bank,
// the phone-wallet provider, the issuer's dispute desk, the Gate supplier,
// Apple Pay and Google Pay): a test key's call goes to that system's
// sandbox (Set); a live key's goes to the live connector configured for it. Where no live connector is configured, every money
// route answers a live key with the one error below, with the same body.
package connectors

import "github.com/paygate/paygate/shared/platform/apierr"

// CodeLiveUnavailable is the one answer to a live key where no live
// connector is configured.
var CodeLiveUnavailable = apierr.Register(apierr.CodeInfo{Name: "live_mode_unavailable", Kind: apierr.Forbidden,
	Meaning: "a live key called a route that reaches an outside system (card processor, payout processor, bank, wallet provider), and no live connector is configured for the account: use a test key, or configure the connector"})

// System names an outside system, for the caller's own records and logs;
// the answer's body is the same for all.
type System string

// The outside systems the areas reach.
const (
	CardProcessor   System = "card processor"
	PayoutProcessor System = "payout processor"
	Bank            System = "bank"
	WalletProvider  System = "phone-wallet provider"
	PaymentTokens   System = "Apple Pay and Google Pay"
)

// Live is whether a live connector for a system is configured: the areas
// pass what their configuration holds (today only Apple Pay and Google Pay
// take live credentials).
type Live map[System]bool

// Choose decides a call's connector: nil when the sandbox serves it (a test
// key) or a live connector is configured for the system; otherwise the one
// live_mode_unavailable error (403).
func Choose(livemode bool, s System, live Live) error {
	if !livemode || live[s] {
		return nil
	}
	return Unavailable()
}

// Unavailable is the one live_mode_unavailable error.
func Unavailable() *apierr.Error {
	return apierr.New(CodeLiveUnavailable, "live mode is not available for this call: no live connector is configured for the account; use a test key")
}

// Package connect decides, once for every function, who serves each outside
// system: the function's own connector (app.Deps.Connectors) where one is
// set, else the system's sandbox. It is the one package outside
// shared/sandbox that imports a sandbox (shared/importrules holds it; the
// wiring's counting test proves every outside call goes through the port
// chosen here). The builders of the areas that call outside systems ask it
// (connect.For(d).Cards); the others do not import it, so their functions
// link no sandbox.
package connect

import (
	"time"

	"github.com/paygate/paygate/shared/platform/app"

	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/domain/secretbox"
	"github.com/paygate/paygate/shared/sandbox/bank"
	"github.com/paygate/paygate/shared/sandbox/cardprocessor"
	"github.com/paygate/paygate/shared/sandbox/gatesupplier"
	"github.com/paygate/paygate/shared/sandbox/issuer"
	"github.com/paygate/paygate/shared/sandbox/payoutprocessor"
	"github.com/paygate/paygate/shared/sandbox/paytokens"
	"github.com/paygate/paygate/shared/sandbox/walletprovider"
	"github.com/paygate/paygate/shared/store"
)

// For is d's connection to every outside system: its own Connectors where
// set, else each system's sandbox over d's store and clock, and the card
// connectors configured in d's store (their keys opened with d.Secrets).
func For(d *app.Deps) connectors.Set { return Fill(d.Connectors, d.Store, d.Secrets, d.Clock) }

// Fill is own with every unset system served by its sandbox over st and
// clock (the payout processor and the bank keep their payments in st), and,
// unless own has them, the card connectors configured in st (a Directory):
// only where box opens their keys. A deployed function without the secret
// box (its main does not pass app.WithSecretBox) has none, so its live keys
// are answered live_mode_unavailable.
func Fill(own connectors.Set, st store.Store, box secretbox.Box, clock func() time.Time) connectors.Set {
	if own.CardConnectors == nil && st != nil && box != nil {
		own.CardConnectors = NewDirectory(st, box, clock, nil)
	}
	if own.Cards == nil {
		own.Cards = cardprocessor.New()
	}
	if own.Payouts == nil {
		own.Payouts = payoutprocessor.New(st, clock)
	}
	if own.Bank == nil {
		own.Bank = bank.New(st, clock)
	}
	if own.PhoneWallet == nil {
		own.PhoneWallet = walletprovider.New(0)
	}
	if own.DisputeDesk == nil {
		own.DisputeDesk = issuer.New()
	}
	if own.Supplier == nil {
		own.Supplier = gatesupplier.New()
	}
	return own
}

// Wallets are Apple Pay's and Google Pay's test keys and tokens (local
// cryptography: no call leaves the function), as walletpay.TestWallets.
type Wallets = paytokens.Sandbox

// TestWallets are the wallets behind test keys.
func TestWallets() Wallets { return paytokens.New() }

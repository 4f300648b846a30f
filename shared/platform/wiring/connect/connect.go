// Package connect hands each area the connection to the outside systems it
// calls: the function's own (app.Deps.Connectors) where one is set, else
// the system's sandbox. It is the one package outside shared/sandbox that
// imports a sandbox, so every outside call of every area goes through a
// port the wiring chose here (shared/importrules holds it; the wiring's
// counting test proves it).
package connect

import (
	"github.com/paygate/paygate/shared/domain/banking"
	"github.com/paygate/paygate/shared/domain/cardpayouts"
	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/disputedesk"
	"github.com/paygate/paygate/shared/domain/phonewallet"
	"github.com/paygate/paygate/shared/domain/supplier"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/sandbox/bank"
	"github.com/paygate/paygate/shared/sandbox/cardprocessor"
	"github.com/paygate/paygate/shared/sandbox/gatesupplier"
	"github.com/paygate/paygate/shared/sandbox/issuer"
	"github.com/paygate/paygate/shared/sandbox/payoutprocessor"
	"github.com/paygate/paygate/shared/sandbox/paytokens"
	"github.com/paygate/paygate/shared/sandbox/walletprovider"
)

// Cards is the card processor.
func Cards(d *app.Deps) cards.Processor {
	if c := d.Connectors.Cards; c != nil {
		return c
	}
	return cardprocessor.New()
}

// Payouts is the payout processor.
func Payouts(d *app.Deps) cardpayouts.Processor {
	if c := d.Connectors.Payouts; c != nil {
		return c
	}
	return payoutprocessor.New(d.Store, d.Clock)
}

// Bank is the bank that pays payment orders.
func Bank(d *app.Deps) banking.Bank {
	if c := d.Connectors.Bank; c != nil {
		return c
	}
	return bank.New(d.Store, d.Clock)
}

// PhoneWallet is the phone-wallet provider.
func PhoneWallet(d *app.Deps) phonewallet.Provider {
	if c := d.Connectors.PhoneWallet; c != nil {
		return c
	}
	return walletprovider.New(0)
}

// DisputeDesk is the card issuer's dispute desk.
func DisputeDesk(d *app.Deps) disputedesk.Desk {
	if c := d.Connectors.DisputeDesk; c != nil {
		return c
	}
	return issuer.New()
}

// Supplier is the Gate supplier of test orders.
func Supplier(d *app.Deps) supplier.TestSupplier {
	if c := d.Connectors.Supplier; c != nil {
		return c
	}
	return gatesupplier.New()
}

// TestWallets are Apple Pay's and Google Pay's test keys and tokens (local
// cryptography: no call leaves the function); walletpay.TestWallets is the
// port they meet, named by the caller so this package links no area.
func TestWallets() paytokens.Sandbox { return paytokens.New() }

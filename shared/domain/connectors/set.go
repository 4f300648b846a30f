package connectors

import (
	"github.com/paygate/paygate/shared/domain/banking"
	"github.com/paygate/paygate/shared/domain/cardpayouts"
	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/disputedesk"
	"github.com/paygate/paygate/shared/domain/phonewallet"
	"github.com/paygate/paygate/shared/domain/supplier"
)

// Set is a function's connection to every outside system its areas call,
// each as the port the domain defines. A nil field is the system's sandbox
// (shared/platform/connect); tests set
// fields to watch or replace a system.
type Set struct {
	Cards       cards.Processor
	Payouts     cardpayouts.Processor
	Bank        banking.Bank
	PhoneWallet phonewallet.Provider
	DisputeDesk disputedesk.Desk
	Supplier    supplier.TestSupplier
	// CardConnectors are the remote card processors configured per account
	// and mode (nil: none; Cards then serves test keys from the sandbox).
	CardConnectors Directory
}

// CardRouter is the set's card processors: the configured connectors,
// else the sandbox (Cards).
func (s Set) CardRouter() Cards { return Cards{Default: s.Cards, Directory: s.CardConnectors} }

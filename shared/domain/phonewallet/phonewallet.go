// Package phonewallet is the phone-wallet provider's port: what the wallet
// area needs of the provider that pushes a payment to the shopper's phone
// and reports the shopper's answer. The sandbox wallet
// (shared/sandbox/walletprovider) is one adapter, chosen by the wiring for
// test keys; a live connection is another (domain/connectors decides).
package phonewallet

import "time"

// Answer is the shopper's answer to a push, as the provider reports it.
type Answer int

const (
	Pending           Answer = iota // no answer yet
	Approved                        // the shopper confirmed: the wallet pays
	Declined                        // the shopper declined
	InsufficientFunds               // the wallet cannot pay
)

// Provider pushes payments to shoppers' phones.
type Provider interface {
	// CheckCurrency refuses a currency the provider's wallets do not hold:
	// an apierr naming "currency".
	CheckCurrency(currency string) error
	// Answer is the shopper's answer to the push sent to phone age ago.
	// A Pending answer with again > 0 is due then (ask again after that
	// long); with again 0 only the shopper (a test helper) or the
	// confirmation timeout decides it.
	Answer(phone string, age time.Duration) (a Answer, again time.Duration)
}

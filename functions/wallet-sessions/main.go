// Command wallet-sessions is the WalletSessionsFunction Lambda: Apple Pay
// merchant sessions and Google Pay payment data requests, and the decoding
// of their tokens into single-use payment tokens.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/wiring/walletpaywire"
)

func main() { app.StartHTTP(walletpaywire.WalletSessions) }

// Command wallet is the WalletFunction Lambda: authorize, read, list,
// capture, cancel and refund wallet transactions, and the sandbox test
// helpers. It sends new transactions to the confirmation queue.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/app/sqsapp"
	"github.com/paygate/paygate/shared/wiring/walletwire"
)

func main() { app.StartHTTP(walletwire.Wallet, app.WithQueue(sqsapp.Open)) }

// Command wallet is the WalletFunction Lambda: authorize, read, list,
// capture, cancel and refund wallet transactions, and the sandbox test
// helpers. It sends new transactions to the confirmation queue.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/walletwire"
)

func main() { app.StartHTTP(walletwire.Wallet, awsapp.Open, app.WithQueue(sqsapp.Open)) }

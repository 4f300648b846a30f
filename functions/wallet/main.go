// Command wallet is the WalletFunction Lambda: authorize, read, list,
// capture, cancel and refund wallet transactions, and the sandbox test
// helpers. It sends new transactions to the confirmation queue.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/pay/wallet"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartHTTP(wallet.BuildWallet, awsapp.Open, app.WithQueue(sqsapp.Open)) }

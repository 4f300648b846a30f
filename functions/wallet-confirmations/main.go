// Command wallet-confirmations is the WalletConfirmationsFunction Lambda: it
// consumes the confirmation queue and moves transactions on as the shopper's
// wallet answers.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/pay/wallet"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartSQS(wallet.BuildWalletConfirmations, awsapp.Open, app.WithQueue(sqsapp.Open)) }

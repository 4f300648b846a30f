// Command wallet-confirmations is the WalletConfirmationsFunction Lambda: it
// consumes the confirmation queue and moves transactions on as the shopper's
// wallet answers.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/walletwire"
)

func main() { app.StartSQS(walletwire.WalletConfirmations, awsapp.Open, app.WithQueue(sqsapp.Open)) }

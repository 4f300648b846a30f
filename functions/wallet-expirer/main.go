// Command wallet-expirer is the WalletExpirerFunction, run every minute by an
// EventBridge schedule: it fails wallet transactions not confirmed within
// five minutes and re-queues open ones whose message was lost.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/pay/wallet"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartScheduled(wallet.BuildWalletExpirer, awsapp.Open, app.WithQueue(sqsapp.Open)) }

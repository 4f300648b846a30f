// Command wallet-expirer is the WalletExpirerFunction, run every minute by an
// EventBridge schedule: it fails wallet transactions not confirmed within
// five minutes and re-queues open ones whose message was lost.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/walletwire"
)

func main() { app.StartScheduled(walletwire.WalletExpirer, awsapp.Open, app.WithQueue(sqsapp.Open)) }

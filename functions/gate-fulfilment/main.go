// Command gate-fulfilment is the GateFulfilmentFunction Lambda: it consumes
// the fulfilment queue (and backs off pending orders on it).
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/gatewire"
)

func main() { app.StartSQS(gatewire.GateFulfilment, awsapp.Open, app.WithQueue(sqsapp.Open)) }

// Command gate-fulfilment is the GateFulfilmentFunction Lambda: it consumes
// the fulfilment queue (and backs off pending orders on it).
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/app/sqsapp"
	"github.com/paygate/paygate/shared/wiring/gatewire"
)

func main() { app.StartSQS(gatewire.GateFulfilment, app.WithQueue(sqsapp.Open)) }

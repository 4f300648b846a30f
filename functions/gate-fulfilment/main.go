// Command gate-fulfilment is the GateFulfilmentFunction Lambda: it consumes
// the fulfilment queue (and backs off pending orders on it).
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/app/sqsapp"
	"github.com/paygate/paygate/shared/wiring"
)

func main() { app.StartSQS(wiring.GateFulfilment, app.WithQueue(sqsapp.Open)) }

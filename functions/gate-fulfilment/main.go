// Command gate-fulfilment is the GateFulfilmentFunction: the fulfilment queue
// consumer that asks the vendor and records each order's outcome.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/wiring"
)

func main() { app.StartSQS(wiring.GateFulfilment) }

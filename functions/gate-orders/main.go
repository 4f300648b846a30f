// Command gate-orders is the GateOrdersFunction: create, read and list Gate
// API orders, and the order test helpers.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/wiring"
)

func main() { app.StartHTTP(wiring.GateOrders) }

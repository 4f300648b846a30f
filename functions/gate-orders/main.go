// Command gate-orders is the GateOrdersFunction Lambda: POST/GET /orders and
// the order test helpers. It sends new orders to the fulfilment queue.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/app/sqsapp"
	"github.com/paygate/paygate/shared/wiring/gatewire"
)

func main() { app.StartHTTP(gatewire.GateOrders, app.WithQueue(sqsapp.Open)) }

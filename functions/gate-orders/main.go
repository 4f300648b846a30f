// Command gate-orders is the GateOrdersFunction Lambda: POST/GET /orders and
// the order test helpers. It sends new orders to the fulfilment queue.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/gatewire"
)

func main() { app.StartHTTP(gatewire.GateOrders, awsapp.Open, app.WithQueue(sqsapp.Open)) }

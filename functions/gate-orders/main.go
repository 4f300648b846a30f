// Command gate-orders is the GateOrdersFunction Lambda: POST/GET /orders and
// the order test helpers. It sends new orders to the fulfilment queue.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/gate/orders"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartHTTP(orders.BuildGateOrders, awsapp.Open, app.WithQueue(sqsapp.Open)) }

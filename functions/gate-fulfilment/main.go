// Command gate-fulfilment is the GateFulfilmentFunction Lambda: it consumes
// the fulfilment queue (and backs off pending orders on it).
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/gate/orders"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartSQS(orders.BuildGateFulfilment, awsapp.Open, app.WithQueue(sqsapp.Open)) }

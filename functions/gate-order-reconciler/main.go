// Command gate-order-reconciler is the GateOrderReconcilerFunction, run every
// minute by an EventBridge schedule: it re-queues pending orders whose
// fulfilment message was lost.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/gate/orders"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() {
	app.StartScheduled(orders.BuildGateOrderReconciler, awsapp.Open, app.WithQueue(sqsapp.Open))
}

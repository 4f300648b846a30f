// Command gate-order-reconciler is the GateOrderReconcilerFunction, run every
// minute by an EventBridge schedule: it re-queues pending orders whose
// fulfilment message was lost.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/gatewire"
)

func main() {
	app.StartScheduled(gatewire.GateOrderReconciler, awsapp.Open, app.WithQueue(sqsapp.Open))
}

// Command gate-order-reconciler is the GateOrderReconcilerFunction, run every
// minute by an EventBridge schedule: it re-queues pending orders whose
// fulfilment message was lost.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/app/sqsapp"
	"github.com/paygate/paygate/shared/wiring/gatewire"
)

func main() { app.StartScheduled(gatewire.GateOrderReconciler, app.WithQueue(sqsapp.Open)) }

// Package wiring lists every function group once, for the local gateway
// (make run) and the tests that compare it with template.yaml. The builders
// live per area (platformwire, gatewire, checkoutwire): a Lambda main imports
// only its own area's package, so it links only what it serves.
package wiring

import (
	"context"
	"time"

	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/gate/orders"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/wiring/checkoutwire"
	"github.com/paygate/paygate/shared/wiring/gatewire"
	"github.com/paygate/paygate/shared/wiring/platformwire"
)

// HTTP lists every HTTP function group.
func HTTP() []app.HTTPBuilder {
	return []app.HTTPBuilder{
		platformwire.Health, platformwire.Merchants,
		gatewire.GateCatalog, gatewire.GateBalance, gatewire.GateOrders,
		checkoutwire.CheckoutSessions, checkoutwire.CheckoutPayments, checkoutwire.CheckoutClient, checkoutwire.CheckoutTestHelpers,
	}
}

// SQS lists every queue consumer by logical function id and queue.
func SQS() []Consumer {
	return []Consumer{
		{Function: "GateFulfilmentFunction", Queue: queue.Fulfilment, Build: gatewire.GateFulfilment},
	}
}

// Periodic lists the scheduled functions (a Schedule event in template.yaml),
// for the local gateway to run every Every.
func Periodic() []Task {
	return []Task{
		{Function: "GateOrderReconcilerFunction", Every: orders.ReconcileInterval, Build: gatewire.GateOrderReconciler},
	}
}

// Task is a scheduled function.
type Task struct {
	Function string // logical id in template.yaml
	Every    time.Duration
	Build    func(*app.Deps) (func(context.Context) error, error)
}

// Consumer is a queue consumer function.
type Consumer struct {
	Function string // logical id in template.yaml
	Queue    string // logical queue name
	Build    app.SQSBuilder
}

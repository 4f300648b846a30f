package orders

import (
	"context"
	"time"

	"github.com/paygate/paygate/shared/platform/connect"

	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
)

// fromDeps is the orders service every gate orders function builds: the
// connected supplier for test orders (its sandbox unless the function has
// its own), no live vendor configured (live orders fail with
// vendor_unavailable and are refunded), per-instance product and balance
// caches that the order transaction verifies.
func fromDeps(d *app.Deps) *Service {
	return New(Config{Store: d.Store, Queue: d.Queue, Clock: d.Clock, Log: d.Log, Test: connect.For(d).Supplier,
		ProductTTL: 5 * time.Minute, SerializeBalances: true})
}

// BuildGateOrders builds the GateOrdersFunction.
func BuildGateOrders(d *app.Deps) (httpapi.Group, error) { return fromDeps(d).Group(), nil }

// BuildGateFulfilment builds the GateFulfilmentFunction (fulfilment queue
// consumer).
func BuildGateFulfilment(d *app.Deps) (queue.Handler, error) { return fromDeps(d).Consume, nil }

// BuildGateOrderReconciler builds the GateOrderReconcilerFunction's task:
// re-queue pending orders whose fulfilment message was lost.
func BuildGateOrderReconciler(d *app.Deps) (func(context.Context) error, error) {
	svc := fromDeps(d)
	return func(ctx context.Context) error {
		_, err := svc.Reconcile(ctx)
		return err
	}, nil
}

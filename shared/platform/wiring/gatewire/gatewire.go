// Package gatewire builds the Gate API's functions: catalog, balance and
// deposits, orders, the fulfilment consumer and the order reconciler.
package gatewire

import (
	"context"
	"time"

	"github.com/paygate/paygate/shared/platform/wiring/connect"

	"github.com/paygate/paygate/shared/gate/catalog"
	"github.com/paygate/paygate/shared/gate/orders"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
)

// GateCatalog builds the GateCatalogFunction.
func GateCatalog(d *app.Deps) (httpapi.Group, error) {
	return catalog.Group(catalog.NewRepo(d.Store)), nil
}

// GateBalance builds the GateBalanceFunction.
func GateBalance(d *app.Deps) (httpapi.Group, error) {
	return prepaid.Group(prepaid.New(d.Store, d.Clock)), nil
}

// gateOrders is the orders service every gate orders function builds: the
// sandbox vendor for test orders (gatesupplier), no live vendor configured (live orders fail
// with vendor_unavailable and are refunded), per-instance product and balance
// caches that the order transaction verifies.
func gateOrders(d *app.Deps) *orders.Service {
	return orders.New(orders.Config{Store: d.Store, Queue: d.Queue, Clock: d.Clock, Log: d.Log, Test: connect.Supplier(d),
		ProductTTL: 5 * time.Minute, SerializeBalances: true})
}

// GateOrders builds the GateOrdersFunction.
func GateOrders(d *app.Deps) (httpapi.Group, error) { return gateOrders(d).Group(), nil }

// GateFulfilment builds the GateFulfilmentFunction (fulfilment queue consumer).
func GateFulfilment(d *app.Deps) (queue.Handler, error) { return gateOrders(d).Consume, nil }

// GateOrderReconciler builds the GateOrderReconcilerFunction's task: re-queue
// pending orders whose fulfilment message was lost.
func GateOrderReconciler(d *app.Deps) (func(context.Context) error, error) {
	svc := gateOrders(d)
	return func(ctx context.Context) error {
		_, err := svc.Reconcile(ctx)
		return err
	}, nil
}

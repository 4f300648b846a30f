// Package wiring names every function group once: the Lambda main.go files
// start one builder each, and the local gateway starts them all.
package wiring

import (
	"context"
	"time"

	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/checkout"
	"github.com/paygate/paygate/shared/gate/catalog"
	"github.com/paygate/paygate/shared/gate/ledger"
	"github.com/paygate/paygate/shared/gate/orders"
	"github.com/paygate/paygate/shared/health"
	"github.com/paygate/paygate/shared/httpapi"
	"github.com/paygate/paygate/shared/merchants"
	"github.com/paygate/paygate/shared/queue"
)

// Health builds the HealthFunction.
func Health(*app.Deps) (httpapi.Group, error) { return health.Group(), nil }

// Merchants builds the MerchantsFunction.
func Merchants(d *app.Deps) (httpapi.Group, error) { return merchants.Group(d.Accounts), nil }

// GateCatalog builds the GateCatalogFunction.
func GateCatalog(d *app.Deps) (httpapi.Group, error) {
	return catalog.Group(catalog.NewRepo(d.Store)), nil
}

// GateBalance builds the GateBalanceFunction.
func GateBalance(d *app.Deps) (httpapi.Group, error) {
	return ledger.Group(ledger.New(d.Store, d.Clock)), nil
}

// gateOrders is the orders service every gate orders function builds: the
// sandbox vendor for test orders, no live vendor configured (live orders fail
// with vendor_unavailable and are refunded), per-instance product and balance
// caches that the order transaction verifies.
func gateOrders(d *app.Deps) *orders.Service {
	return orders.New(orders.Config{Store: d.Store, Queue: d.Queue, Clock: d.Clock, Log: d.Log,
		ProductTTL: 5 * time.Minute, SerializeBalances: true})
}

// GateOrders builds the GateOrdersFunction.
func GateOrders(d *app.Deps) (httpapi.Group, error) { return gateOrders(d).Group(), nil }

// GateFulfilment builds the GateFulfilmentFunction (fulfilment queue consumer).
func GateFulfilment(d *app.Deps) (app.SQSHandler, error) { return gateOrders(d).HandleSQS, nil }

// GateOrderReconciler builds the GateOrderReconcilerFunction's task: re-queue
// pending orders whose fulfilment message was lost.
func GateOrderReconciler(d *app.Deps) (func(context.Context) error, error) {
	svc := gateOrders(d)
	return func(ctx context.Context) error {
		_, err := svc.Reconcile(ctx)
		return err
	}, nil
}

// checkoutGroup builds one checkout function group.
func checkoutGroup(pick func(*checkout.Service) httpapi.Group) app.HTTPBuilder {
	return func(d *app.Deps) (httpapi.Group, error) {
		svc, err := checkout.FromDeps(d)
		if err != nil {
			return httpapi.Group{}, err
		}
		return pick(svc), nil
	}
}

// Checkout function groups: sessions, the advanced flow, the drop-in's
// client-key endpoints and the sandbox test helpers.
var (
	CheckoutSessions    = checkoutGroup((*checkout.Service).SessionsGroup)
	CheckoutPayments    = checkoutGroup((*checkout.Service).PaymentsGroup)
	CheckoutClient      = checkoutGroup((*checkout.Service).ClientGroup)
	CheckoutTestHelpers = checkoutGroup((*checkout.Service).TestHelpersGroup)
)

// HTTP lists every HTTP function group, for the local gateway.
func HTTP() []app.HTTPBuilder {
	return []app.HTTPBuilder{Health, Merchants, GateCatalog, GateBalance, CheckoutSessions, CheckoutPayments, CheckoutClient, CheckoutTestHelpers, GateOrders}
}

// SQS lists every queue consumer by logical function id and queue, for the
// local gateway's workers.
func SQS() []Consumer {
	return []Consumer{
		{Function: "GateFulfilmentFunction", Queue: queue.Fulfilment, Build: GateFulfilment},
	}
}

// Periodic lists the scheduled functions (a Schedule event in template.yaml),
// for the local gateway to run every Every.
func Periodic() []Task {
	return []Task{
		{Function: "GateOrderReconcilerFunction", Every: orders.ReconcileInterval, Build: GateOrderReconciler},
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

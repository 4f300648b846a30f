package orders

import (
	"time"

	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
)

// Creating an order is one TransactWriteItems (idempotency record, order,
// balance debit, pending-index entry: UpdateItem each; a ConditionCheck on the
// product) after two GetItems (key, idempotency record). An outcome is one
// TransactWriteItems (order, event record, pending-index delete, and for a
// failure the balance refund).

// OrdersGroup is the GateOrdersFunction: create, get, list, and the order
// test helpers. New orders go to the fulfilment queue.
var OrdersGroup = registry.Group{
	Function: GroupName, Dir: "gate-orders", OpenAPI: "paths-gate-orders.json", MoneyPath: true,
	Routes: []registry.Route{
		{Method: "POST", Path: "/orders", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline},
		{Method: "GET", Path: "/orders", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/orders/{orderId}", Auth: httpapi.AuthSecret},
		{Method: "POST", Path: "/test-helpers/orders/{orderId}/complete", Auth: httpapi.AuthSecret, TestOnly: true, Idempotency: httpapi.IdemInlineOptional},
		{Method: "POST", Path: "/test-helpers/orders/{orderId}/fail", Auth: httpapi.AuthSecret, TestOnly: true, Idempotency: httpapi.IdemInlineOptional},
	},
	Tables: []registry.Table{
		{Name: store.TableAccounts, Actions: []string{"GetItem"}},
		{Name: store.TableIdempotency, Actions: []string{"GetItem", "UpdateItem"}},
		{Name: store.TableCatalog, Actions: []string{"GetItem", "ConditionCheckItem"}},
		{Name: store.TableLedger, Actions: []string{"GetItem", "UpdateItem"}},
		{Name: store.TableOrders, Actions: []string{"GetItem", "Query", "UpdateItem", "DeleteItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
	},
	Queues: []registry.Queue{{Name: queue.Fulfilment, Access: registry.Send}},
}

// FulfilmentGroup is the GateFulfilmentFunction: the fulfilment queue's
// consumer, which asks the vendor and records each order's outcome.
var FulfilmentGroup = registry.Group{
	Function: "GateFulfilmentFunction", Dir: "gate-fulfilment", Consumes: queue.Fulfilment,
	Timeout: 30 * time.Second,
	Tables: []registry.Table{
		{Name: store.TableOrders, Actions: []string{"GetItem", "UpdateItem", "DeleteItem"}},
		{Name: store.TableLedger, Actions: []string{"UpdateItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
	},
	// Receive/delete, and ChangeMessageVisibility for the backoff.
	Queues: []registry.Queue{{Name: queue.Fulfilment, Access: registry.Poll}},
}

// ReconcilerGroup is the GateOrderReconcilerFunction: every minute it
// re-queues pending orders whose fulfilment message was lost, and fails (and
// refunds) those whose supplier has not answered within SupplierTimeout.
var ReconcilerGroup = registry.Group{
	Function: "GateOrderReconcilerFunction", Dir: "gate-order-reconciler", Every: ReconcileInterval,
	Timeout: 30 * time.Second,
	Tables: []registry.Table{
		// The pending index, the resume point, and a late order's failure:
		// order, index entry, refund and event in one TransactWriteItems.
		{Name: store.TableOrders, Actions: []string{"GetItem", "Query", "UpdateItem", "DeleteItem"}},
		{Name: store.TableLedger, Actions: []string{"UpdateItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
	},
	Queues: []registry.Queue{{Name: queue.Fulfilment, Access: registry.Send}},
}

// Area is gate orders: orders, the pending index and the balance leases
// live in the orders table; outcomes append to the platform's event log.
var Area = registry.Area{
	Name:   "gate/orders",
	Groups: []registry.Group{OrdersGroup, FulfilmentGroup, ReconcilerGroup},
	Keys: []registry.Key{
		{Table: store.TableOrders, Prefix: orderPK(""), What: "an account's orders"},
		{Table: store.TableOrders, Prefix: pendingIndex.Prefix, What: "the pending-order index shards"},
		{Table: store.TableOrders, Prefix: leaseKey("", "").PK, What: "balance leases"},
	},
}

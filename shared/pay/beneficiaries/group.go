package beneficiaries

import (
	"time"

	"github.com/paygate/paygate/shared/domain/banking"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
)

// BeneficiariesGroup is the BeneficiariesFunction: beneficiaries and their
// transfers, settlement payment orders, and distributions. The spec's
// Merchants beneficiaries and Distributions are one function: the same
// records, the same grants, and a distribution reads the beneficiaries it
// credits (docs/architecture.md, Stack size).
var BeneficiariesGroup = registry.Group{
	Function: "BeneficiariesFunction", Dir: "beneficiaries", OpenAPI: "paths-beneficiaries.json", MoneyPath: true,
	Routes: []registry.Route{
		{Method: "POST", Path: "/v1/merchants/beneficiaries", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
		{Method: "GET", Path: "/v1/merchants/beneficiaries", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/v1/merchants/beneficiaries/{id}", Auth: httpapi.AuthSecret},
		{Method: "POST", Path: "/v1/merchants/beneficiaries/{id}", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
		{Method: "POST", Path: "/v1/merchants/beneficiaries/{id}/transfer", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline},
		{Method: "POST", Path: "/v1/merchants/settlement-payment-orders", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline},
		{Method: "GET", Path: "/v1/merchants/settlement-payment-orders", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/v1/merchants/settlement-payment-orders/{id}", Auth: httpapi.AuthSecret},
		{Method: "POST", Path: "/v1/distributions", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline},
		{Method: "GET", Path: "/v1/distributions", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/v1/distributions/balance", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/v1/distributions/{id}", Auth: httpapi.AuthSecret},
	},
	Tables: []registry.Table{
		{Name: store.TableAccounts, Actions: []string{"GetItem"}},
		{Name: store.TableIdempotency, Actions: []string{"GetItem", "UpdateItem"}},
		// Beneficiaries, orders, distributions and balances (GetItem,
		// Query; a distribution reads its beneficiaries 100 at a time:
		// BatchGetItem); every write is a put or an add (UpdateItem) in one
		// TransactWriteItems; a distribution's last chunk removes its
		// open-index entry (DeleteItem).
		{Name: store.TableLedger, Actions: []string{"GetItem", "BatchGetItem", "Query", "UpdateItem", "DeleteItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
	},
	Queues: []registry.Queue{{Name: queue.PaymentOrders, Access: registry.Send}},
}

// PaymentOrdersGroup is the PaymentOrdersSenderFunction: the payment orders
// queue's consumer, which sends each order to the bank and records its
// answer.
var PaymentOrdersGroup = registry.Group{
	Function: "PaymentOrdersSenderFunction", Dir: "payment-orders-sender", Consumes: queue.PaymentOrders,
	Timeout: 30 * time.Second,
	Tables: []registry.Table{
		// The order (GetItem), its decision: record, entry, balances, event
		// (UpdateItem), the open entry's removal (DeleteItem); the sandbox
		// bank's own record (GetItem, UpdateItem).
		{Name: store.TableLedger, Actions: []string{"GetItem", "UpdateItem", "DeleteItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
	},
	// Receive/delete, and ChangeMessageVisibility for "ask again later".
	Queues: []registry.Queue{{Name: queue.PaymentOrders, Access: registry.Poll}},
}

// Area is the merchant's beneficiaries: beneficiaries, payment orders and
// distributions, in the ledger table beside the books they post to.
var Area = registry.Area{
	Name:   "beneficiaries",
	Groups: []registry.Group{BeneficiariesGroup, PaymentOrdersGroup},
	Keys: []registry.Key{
		{Table: store.TableLedger, Prefix: beneficiaryPK(""), What: "beneficiaries"},
		{Table: store.TableLedger, Prefix: orderPK(""), What: "settlement payment orders"},
		{Table: store.TableLedger, Prefix: requestPK(""), What: "payment orders by request_id"},
		{Table: store.TableLedger, Prefix: orderOpen.Prefix, What: "the open payment order index shards"},
		{Table: store.TableLedger, Prefix: banking.RecordPrefix, What: "the sandbox bank's records"},
		{Table: store.TableLedger, Prefix: distributionPK(""), What: "distributions"},
		{Table: store.TableLedger, Prefix: distOpen.Prefix, What: "the open distribution index shards"},
	},
}

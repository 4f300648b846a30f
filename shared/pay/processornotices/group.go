package processornotices

import (
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/store"
)

// NoticesGroup is the ProcessorNoticesFunction: the card processors'
// notifications about the payments their connectors made. No API key: each
// item's HMAC signature, under the connector's key, is the credential.
var NoticesGroup = registry.Group{
	Function: "ProcessorNoticesFunction", Dir: "processor-notices", OpenAPI: "paths-processor-notices.json", MoneyPath: true,
	Routes: []registry.Route{
		{Method: "POST", Path: "/webhooks/adyen/{connector_id}"},
	},
	Tables: []registry.Table{
		// The connector (its account and HMAC key) is read from the
		// accounts table.
		{Name: store.TableAccounts, Actions: []string{"GetItem"}},
		// The notice (GetItem, then put-if-absent) and the payment it
		// matches (GetItem, and its conditional put with the notice, one
		// TransactWriteItems of UpdateItems).
		// A chargeback's dispute (disputes.OpenFromProcessor) too: the
		// dispute, its due entry and the payment's mark (Query: the
		// dispute desk's lookups), its event, the hold in the ledger.
		{Name: store.TablePayments, Actions: []string{"GetItem", "Query", "UpdateItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
		{Name: store.TableLedger, Actions: []string{"Query", "UpdateItem"}},
	},
}

// Area is processornotices: the processors' notifications.
var Area = registry.Area{
	Name:   "processornotices",
	Groups: []registry.Group{NoticesGroup},
	Keys: []registry.Key{
		{Table: store.TablePayments, Prefix: noticePK(""), What: "the card processors' notices, per connector"},
	},
}

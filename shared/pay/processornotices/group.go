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
		{Name: store.TablePayments, Actions: []string{"GetItem", "UpdateItem"}},
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

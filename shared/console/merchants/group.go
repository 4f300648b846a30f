package merchants

import (
	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/store"
)

// MerchantsGroup is the MerchantsFunction: the calling merchant's account.
var MerchantsGroup = registry.Group{
	Function: "MerchantsFunction", Dir: "merchants", OpenAPI: "paths-platform.json",
	Routes: []registry.Route{
		{Method: "GET", Path: "/v1/merchants/me", Auth: httpapi.AuthSecret},
	},
	Tables: []registry.Table{{Name: store.TableAccounts, Actions: []string{"GetItem"}}},
}

// Area is the platform area: the merchant endpoint and the records every
// area reads or writes through the shared platform packages (accounts, API
// keys, idempotency records, the event log), registered once here.
var Area = registry.Area{
	Name:   "platform",
	Groups: []registry.Group{MerchantsGroup},
	Keys: []registry.Key{
		{Table: store.TableAccounts, Prefix: "acct#", What: "accounts and their key list (shared/platform/accounts, shared/platform/auth)"},
		{Table: store.TableAccounts, Prefix: "macct#", What: "merchant account names (shared/platform/accounts)"},
		{Table: store.TableAccounts, Prefix: "acctidx#", What: "the accounts index, every account's id (shared/platform/accounts)"},
		{Table: store.TableAccounts, Prefix: "key#", What: "API keys by hash (shared/platform/auth)"},
		{Table: store.TableIdempotency, Prefix: "idem#", What: "idempotency records (shared/platform/idempotency)"},
		{Table: store.TableEvents, Prefix: eventlog.PK(""), What: "the event log every area appends to in its state-change transaction (shared/domain/eventlog)"},
	},
}

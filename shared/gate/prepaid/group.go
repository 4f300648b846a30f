package prepaid

import (
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/store"
)

// BalanceGroup is the GateBalanceFunction: balances, deposits and the
// test-mode deposit helper.
var BalanceGroup = registry.Group{
	Function: "GateBalanceFunction", Dir: "gate-balance", OpenAPI: "paths-gate-balance.json", MoneyPath: true,
	Routes: []registry.Route{
		{Method: "GET", Path: "/balance", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/deposits", Auth: httpapi.AuthSecret},
		{Method: "POST", Path: "/test-helpers/deposits", Auth: httpapi.AuthSecret, TestOnly: true, Idempotency: httpapi.IdemInlineOptional},
	},
	Tables: []registry.Table{
		{Name: store.TableAccounts, Actions: []string{"GetItem"}},
		// A deposit is one TransactWriteItems: the record, the reference
		// claim, the balance increment and its deposit.posted event
		// (UpdateItem each).
		{Name: store.TableLedger, Actions: []string{"GetItem", "Query", "UpdateItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
		// Idempotency-Key on the test helper: read, then recorded in the
		// deposit's own transaction.
		{Name: store.TableIdempotency, Actions: []string{"GetItem", "UpdateItem"}},
	},
}

// Area is the gate ledger: balances, deposits and their reference claims;
// posted deposits append to the platform's event log.
var Area = registry.Area{
	Name:   "gate/prepaid",
	Groups: []registry.Group{BalanceGroup},
	Keys: []registry.Key{
		{Table: store.TableLedger, Prefix: balancePK(""), What: "balances per currency"},
		{Table: store.TableLedger, Prefix: depositPK(""), What: "deposits by time"},
		{Table: store.TableLedger, Prefix: refKey("", "").PK, What: "deposit reference claims"},
	},
}

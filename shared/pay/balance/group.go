package balance

import (
	"time"

	"github.com/paygate/paygate/shared/domain/cardpayouts"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
)

// BalanceGroup is the MerchantBalanceFunction: the merchant's balance and
// ledger entries, payout cards and payouts.
var BalanceGroup = registry.Group{
	Function: "MerchantBalanceFunction", Dir: "balance", OpenAPI: "paths-balance.json", MoneyPath: true,
	Routes: []registry.Route{
		{Method: "GET", Path: "/v1/balance", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/v1/balance/entries", Auth: httpapi.AuthSecret},
		{Method: "POST", Path: "/v1/payouts/cards", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
		{Method: "GET", Path: "/v1/payouts/cards", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/v1/payouts/cards/{id}", Auth: httpapi.AuthSecret},
		{Method: "DELETE", Path: "/v1/payouts/cards/{id}", Auth: httpapi.AuthSecret},
		{Method: "POST", Path: "/v1/payouts", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline},
		{Method: "GET", Path: "/v1/payouts", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/v1/payouts/{id}", Auth: httpapi.AuthSecret},
		{Method: "POST", Path: "/v1/payouts/{id}/cancel", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline},
	},
	Tables: []registry.Table{
		{Name: store.TableAccounts, Actions: []string{"GetItem"}},
		{Name: store.TableIdempotency, Actions: []string{"GetItem", "UpdateItem"}},
		// Balances and entries (GetItem, Query); payout cards and payouts
		// (GetItem, Query, UpdateItem puts, DeleteItem of a card); a payout
		// is one TransactWriteItems of its record, open entry, reservation
		// entry and balances (UpdateItem each).
		{Name: store.TableLedger, Actions: []string{"GetItem", "Query", "UpdateItem", "DeleteItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
	},
	Queues: []registry.Queue{{Name: queue.Payouts, Access: registry.Send}},
}

// PayoutsGroup is the PayoutsSenderFunction: the payouts queue's consumer,
// which pays each payout through the payout processor and records its
// answer.
var PayoutsGroup = registry.Group{
	Function: "PayoutsSenderFunction", Dir: "payouts-sender", Consumes: queue.Payouts,
	Timeout: 30 * time.Second,
	Tables: []registry.Table{
		// The payout (GetItem), its decision: record, entry, balances,
		// event (UpdateItem), the open entry's removal (DeleteItem); the
		// sandbox processor's own record (GetItem, UpdateItem).
		{Name: store.TableLedger, Actions: []string{"GetItem", "UpdateItem", "DeleteItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
	},
	// Receive/delete, and ChangeMessageVisibility for "try again later".
	Queues: []registry.Queue{{Name: queue.Payouts, Access: registry.Poll}},
}

// SettlementGroup is the SettlementFunction: every SettleInterval it makes
// available the captured funds whose settlement delay passed, re-queues
// payouts and settlement payment orders whose message was lost, and
// finishes distributions whose later chunks a dead process left
// (shared/pay/beneficiaries Sweep; beneficiaries.BuildSettlement builds
// the task, as balance imports no beneficiaries).
var SettlementGroup = registry.Group{
	Function: "SettlementFunction", Dir: "settlement", Every: SettleInterval,
	Timeout: 60 * time.Second,
	Tables: []registry.Table{
		// Query the due and open indexes; a settlement is one
		// TransactWriteItems (entry and balances: UpdateItem; the due
		// entry's removal: DeleteItem); a distribution to finish is read
		// (GetItem) and its chunks written like a settlement.
		{Name: store.TableLedger, Actions: []string{"GetItem", "Query", "UpdateItem", "DeleteItem"}},
		// A finished distribution's distribution.completed event.
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
	},
	Queues: []registry.Queue{{Name: queue.Payouts, Access: registry.Send}, {Name: queue.PaymentOrders, Access: registry.Send}},
}

// Area is the merchant's balance: its double-entry books (shared/domain/ledger),
// payout cards and payouts, all in the ledger table.
var Area = registry.Area{
	Name:   "balance",
	Groups: []registry.Group{BalanceGroup, PayoutsGroup, SettlementGroup},
	Keys: func() []registry.Key {
		keys := []registry.Key{
			{Table: store.TableLedger, Prefix: payoutPK(""), What: "payouts"},
			{Table: store.TableLedger, Prefix: openIndex.Prefix, What: "the open payout index shards"},
			{Table: store.TableLedger, Prefix: cardPK(""), What: "payout cards"},
			{Table: store.TableLedger, Prefix: cardpayouts.RecordPrefix, What: "the sandbox payout processor's records"},
		}
		for _, p := range ledger.Prefixes {
			keys = append(keys, registry.Key{Table: store.TableLedger, Prefix: p[0], What: p[1]})
		}
		return keys
	}(),
}

package wallet

import (
	"time"

	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
)

// WalletGroup is the WalletFunction: authorize, read, list, capture, cancel,
// refund, and the sandbox test helpers. StatusNew transactions go to the
// confirmation queue.
var WalletGroup = registry.Group{
	Function: "WalletFunction", Dir: "wallet", OpenAPI: "paths-wallet.json", MoneyPath: true,
	Routes: []registry.Route{
		{Method: "POST", Path: "/v1/wallet/authorize", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline},
		{Method: "GET", Path: "/v1/wallet/transaction/{id}", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/v1/wallet/transactions", Auth: httpapi.AuthSecret},
		{Method: "POST", Path: "/v1/wallet/{id}/capture", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline},
		{Method: "POST", Path: "/v1/wallet/{id}/cancel", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline},
		{Method: "POST", Path: "/v1/wallet/{id}/refund", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline},
		{Method: "POST", Path: "/test-helpers/wallet/{id}/confirm", Auth: httpapi.AuthSecret, TestOnly: true, Idempotency: httpapi.IdemInlineOptional},
		{Method: "POST", Path: "/test-helpers/wallet/{id}/decline", Auth: httpapi.AuthSecret, TestOnly: true, Idempotency: httpapi.IdemInlineOptional},
	},
	Tables: []registry.Table{
		{Name: store.TableAccounts, Actions: []string{"GetItem"}},
		{Name: store.TableIdempotency, Actions: []string{"GetItem", "UpdateItem"}},
		// Transactions: GetItem, Query (list), UpdateItem (puts); the open
		// index entry is put on authorize and deleted by the move that
		// closes it (cancel, a test helper's answer).
		{Name: store.TablePayments, Actions: []string{"GetItem", "Query", "UpdateItem", "DeleteItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
		// A capture or refund posts its ledger entries and balances
		// (shared/domain/ledger) in the move's transaction.
		{Name: store.TableLedger, Actions: []string{"UpdateItem"}},
	},
	Queues: []registry.Queue{{Name: queue.WalletConfirmations, Access: registry.Send}},
}

// ConfirmationsGroup is the WalletConfirmationsFunction: the confirmation
// queue's consumer, which moves transactions on as the wallet answers.
var ConfirmationsGroup = registry.Group{
	Function: "WalletConfirmationsFunction", Dir: "wallet-confirmations", Consumes: queue.WalletConfirmations,
	Timeout: 30 * time.Second,
	Tables: []registry.Table{
		{Name: store.TablePayments, Actions: []string{"GetItem", "UpdateItem", "DeleteItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
	},
	// Receive/delete, and ChangeMessageVisibility for "ask again later".
	Queues: []registry.Queue{{Name: queue.WalletConfirmations, Access: registry.Poll}},
}

// ExpirerGroup is the WalletExpirerFunction: every minute it fails the
// transactions not confirmed within ConfirmTimeout and re-queues open ones
// whose message was lost.
var ExpirerGroup = registry.Group{
	Function: "WalletExpirerFunction", Dir: "wallet-expirer", Every: ExpireInterval,
	Timeout: 30 * time.Second,
	Tables: []registry.Table{
		{Name: store.TablePayments, Actions: []string{"GetItem", "Query", "UpdateItem", "DeleteItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
	},
	Queues: []registry.Queue{{Name: queue.WalletConfirmations, Access: registry.Send}},
}

// Area is the wallet: transactions and their open index in the payments
// table; every change appends to the platform's event log.
var Area = registry.Area{
	Name:   "wallet",
	Groups: []registry.Group{WalletGroup, ConfirmationsGroup, ExpirerGroup},
	Keys: []registry.Key{
		{Table: store.TablePayments, Prefix: txPK(""), What: "an account's wallet transactions"},
		{Table: store.TablePayments, Prefix: openIndex.Prefix, What: "the open wallet transaction index shards"},
	},
}

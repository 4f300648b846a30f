package transactions

import (
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/store"
)

// TransactionsGroup is the TransactionsFunction: read, list, capture,
// cancel and refund Pay API transactions (payments.Payment records).
var TransactionsGroup = registry.Group{
	Function: "TransactionsFunction", Dir: "transactions", OpenAPI: "paths-transactions.json", MoneyPath: true,
	Routes: []registry.Route{
		{Method: "GET", Path: "/v1/transactions", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/v1/transactions/{id}", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/v1/transactions/by-order-reference/{order_reference}", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/v1/transactions/by-payment-link/{payment_link_id}", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/v1/transactions/{id}/history", Auth: httpapi.AuthSecret},
		{Method: "POST", Path: "/v1/transactions/{id}/capture", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline},
		{Method: "POST", Path: "/v1/transactions/{id}/cancel", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline},
		{Method: "POST", Path: "/v1/transactions/{id}/refund", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline},
	},
	Tables: []registry.Table{
		{Name: store.TableAccounts, Actions: []string{"GetItem"}},
		{Name: store.TableIdempotency, Actions: []string{"GetItem", "UpdateItem"}},
		// Records and index entries: GetItem, Query (lists, the indexes),
		// UpdateItem (puts); a capture or cancel deletes the payment's
		// expiry-index entry in its transaction.
		{Name: store.TablePayments, Actions: []string{"GetItem", "Query", "UpdateItem", "DeleteItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
		// A capture or refund posts its ledger entries and balances
		// (shared/domain/ledger, through payments.SaveOps) in its transaction.
		{Name: store.TableLedger, Actions: []string{"UpdateItem"}},
	},
}

// ModificationsGroup is the CheckoutModificationsFunction: Adyen Checkout
// v71's modifications of a payment (routes_adyen.go), a second face of the same
// services as TransactionsGroup's capture, cancel and refund. The
// Idempotency-Key is optional there, as at Adyen, and recorded in the
// change's own transaction when sent.
var ModificationsGroup = registry.Group{
	Function: "CheckoutModificationsFunction", Dir: "checkout-modifications", OpenAPI: "paths-modifications.json", MoneyPath: true,
	Routes: []registry.Route{
		{Method: "POST", Path: "/v2/payments/{paymentPspReference}/captures", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
		{Method: "POST", Path: "/v2/payments/{paymentPspReference}/refunds", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
		{Method: "POST", Path: "/v2/payments/{paymentPspReference}/cancels", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
		{Method: "POST", Path: "/v2/payments/{paymentPspReference}/reversals", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
		{Method: "POST", Path: "/v2/payments/{paymentPspReference}/amountUpdates", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
		{Method: "POST", Path: "/v2/cancels", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
	},
	Tables: TransactionsGroup.Tables,
}

// ExpirerGroup is the AuthorizationExpirerFunction: every ExpireInterval it
// voids the authorisations not captured within payments.AuthorizationTTL,
// and sends the card processor the captures, cancels and refunds it has not
// received (Service.Resend).
var ExpirerGroup = registry.Group{
	Function: "AuthorizationExpirerFunction", Dir: "authorization-expirer", Every: ExpireInterval,
	Timeout: 30 * time.Second,
	Tables: []registry.Table{
		// The card connectors of the payments whose modifications it sends
		// again (shared/domain/connectors, beside the account).
		{Name: store.TableAccounts, Actions: []string{"GetItem"}},
		{Name: store.TablePayments, Actions: []string{"GetItem", "Query", "UpdateItem", "DeleteItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
	},
}

// Area is the Pay API transactions: they read and move the payment records
// checkout writes; the index partitions are written with the records
// (payments.SaveOps).
var Area = registry.Area{
	Name:   "transactions",
	Groups: []registry.Group{TransactionsGroup, ModificationsGroup, ExpirerGroup},
	Keys: []registry.Key{
		{Table: store.TablePayments, Prefix: strings.TrimSuffix(payments.RefPK("", ""), "#"), What: "transactions by order reference"},
		{Table: store.TablePayments, Prefix: strings.TrimSuffix(payments.LinkPK("", ""), "#"), What: "transactions by payment link"},
		{Table: store.TablePayments, Prefix: payments.ExpiryIndex.Prefix, What: "the authorisation expiry index shards"},
		{Table: store.TablePayments, Prefix: payments.ModificationIndex.Prefix, What: "the modifications the card processor has not yet received, by when they are sent again"},
		{Table: store.TablePayments, Prefix: payments.ExpiryIndex.Legacy.Prefix, What: "the authorisation expiry index shards written before the one due-time layout (read, never written)"},
	},
}

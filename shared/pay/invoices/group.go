package invoices

import (
	"time"

	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/store"
)

// InvoicesGroup is the InvoicesFunction: bank invoices, and the sandbox
// payer's bank that pays them (a test helper).
var InvoicesGroup = registry.Group{
	Function: "InvoicesFunction", Dir: "invoices", OpenAPI: "paths-invoices.json", MoneyPath: true,
	Routes: []registry.Route{
		{Method: "POST", Path: "/v1/invoices", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline},
		{Method: "GET", Path: "/v1/invoices", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/v1/invoices/{id}", Auth: httpapi.AuthSecret},
		{Method: "POST", Path: "/v1/invoices/{id}/cancel", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
		{Method: "POST", Path: "/test-helpers/invoices/{id}/pay", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional, TestOnly: true},
	},
	Tables: []registry.Table{
		{Name: store.TableAccounts, Actions: []string{"GetItem"}},
		{Name: store.TableIdempotency, Actions: []string{"GetItem", "UpdateItem"}},
		// Invoices (GetItem, Query); a create puts the invoice and its
		// expiry entry, an ending writes the invoice, the books' entries
		// and balances (UpdateItem) and removes the expiry entry
		// (DeleteItem), in one TransactWriteItems.
		{Name: store.TableLedger, Actions: []string{"GetItem", "Query", "UpdateItem", "DeleteItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
	},
}

// ExpiryGroup is the InvoiceExpiryFunction: every ExpireInterval it marks
// the invoices whose expires_at passed unpaid expired, with invoice.expired.
var ExpiryGroup = registry.Group{
	Function: "InvoiceExpiryFunction", Dir: "invoice-expiry", Every: ExpireInterval,
	Timeout: 60 * time.Second,
	Tables: []registry.Table{
		// Query the expiry index; read each due invoice (GetItem); expire it
		// (UpdateItem) and remove its entry (DeleteItem) in one transaction.
		{Name: store.TableLedger, Actions: []string{"GetItem", "Query", "UpdateItem", "DeleteItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
	},
}

// Area is the bank invoices, in the ledger table beside the books a paid
// invoice posts to.
var Area = registry.Area{
	Name:   "invoices",
	Groups: []registry.Group{InvoicesGroup, ExpiryGroup},
	Keys: []registry.Key{
		{Table: store.TableLedger, Prefix: invoicePK(""), What: "bank invoices"},
		{Table: store.TableLedger, Prefix: expiryIndex.Prefix, What: "the invoice expiry index shards"},
	},
}

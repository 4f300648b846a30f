package customers

import (
	"strings"

	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/domain/vault"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/store"
)

// CustomersGroup is the CustomersFunction: customers, their card tokens and
// transactions, and recurring (merchant-initiated) payments of a card
// token. One function serves both (doc.go says why).
var CustomersGroup = registry.Group{
	Function: "CustomersFunction", Dir: "customers", OpenAPI: "paths-customers.json", MoneyPath: true,
	Routes: []registry.Route{
		{Method: "POST", Path: "/v1/customers", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline},
		{Method: "GET", Path: "/v1/customers", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/v1/customers/{id}", Auth: httpapi.AuthSecret},
		{Method: "POST", Path: "/v1/customers/{id}", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
		{Method: "GET", Path: "/v1/customers/{id}/transactions", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/v1/customers/{id}/card-tokens", Auth: httpapi.AuthSecret},
		{Method: "DELETE", Path: "/v1/customers/{id}/card-tokens/{token_id}", Auth: httpapi.AuthSecret},
		{Method: "POST", Path: "/v1/payments/recurring", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline},
		// Adyen's stored payment methods (routes_adyen.go): the card tokens'
		// second face, for merchants who migrate with Adyen's libraries.
		{Method: "GET", Path: "/v2/storedPaymentMethods", Auth: httpapi.AuthSecret},
		{Method: "DELETE", Path: "/v2/storedPaymentMethods/{storedPaymentMethodId}", Auth: httpapi.AuthSecret},
	},
	Tables: []registry.Table{
		{Name: store.TableAccounts, Actions: []string{"GetItem"}},
		{Name: store.TableIdempotency, Actions: []string{"GetItem", "UpdateItem"}},
		// Customers, card tokens and their index partitions live in the
		// payments table beside the payments: GetItem and Query to read,
		// UpdateItem (puts) to create a customer (and migrate its legacy
		// stored cards, DeleteItem), to update one (its e-mail index entry
		// moved: DeleteItem) and to record a recurring payment with its index
		// entries; a token's delete is DeleteItem. ConditionCheckItem: an
		// update's newly chosen default token must still be there, and a
		// token's delete checks its customer's version.
		{Name: store.TablePayments, Actions: []string{"GetItem", "Query", "UpdateItem", "DeleteItem", "ConditionCheckItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
		// A recurring payment captured with its authorisation posts its
		// ledger entries and balances (shared/domain/ledger, through
		// payments.SaveOps) in its transaction.
		{Name: store.TableLedger, Actions: []string{"UpdateItem"}},
	},
	// A recurring payment that needs the shopper (on-session 3-D Secure)
	// seals its action's paymentData with checkout's session-signing keys.
	Grants: []registry.Grant{{Policy: "!Ref SessionSigningSecretReadPolicy"}},
}

// Area is the customers: customers and card tokens (shared/domain/vault's keys),
// the legacy stored cards they replace, and the payments' index by
// customer (written by payments.SaveOps).
var Area = registry.Area{
	Name:   "customers",
	Groups: []registry.Group{CustomersGroup},
	Keys: []registry.Key{
		{Table: store.TablePayments, Prefix: vault.CustomersPK(""), What: "customers"},
		{Table: store.TablePayments, Prefix: strings.TrimSuffix(vault.RefPK("", ""), "#"), What: "customers by external_ref (the reference's claim)"},
		{Table: store.TablePayments, Prefix: strings.TrimSuffix(vault.EmailPK("", ""), "#"), What: "customers by e-mail"},
		{Table: store.TablePayments, Prefix: vault.TokensPK(""), What: "card tokens"},
		{Table: store.TablePayments, Prefix: strings.TrimSuffix(vault.CustomerTokensPK("", ""), "#"), What: "a customer's card tokens"},
		{Table: store.TablePayments, Prefix: strings.TrimSuffix(vault.LegacyPK("", ""), "#"), What: "legacy stored cards (checkout's, before card tokens), migrated on first use"},
		{Table: store.TablePayments, Prefix: strings.TrimSuffix(payments.CustomerPK("", ""), "#"), What: "transactions by customer"},
	},
}

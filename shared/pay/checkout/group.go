package checkout

import (
	"time"

	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/store"
)

// Puts are UpdateItem calls; a session payment is one TransactWriteItems
// (payment, event, session, live-marker check, the session's completed event
// when it completes it, idempotency record).

// SessionsGroup is the CheckoutSessionsFunction: sessions and their results.
// Idempotency-Key is recorded inline (in the session's own transaction), so a
// session is one write call.
var SessionsGroup = registry.Group{
	Function: "CheckoutSessionsFunction", Dir: "checkout-sessions", OpenAPI: "paths-checkout.json", MoneyPath: true,
	Routes: []registry.Route{
		{Method: "POST", Path: "/v2/sessions", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
		{Method: "GET", Path: "/v2/sessions/{id}", Auth: httpapi.AuthSecret},
	},
	Tables: []registry.Table{
		{Name: store.TableAccounts, Actions: []string{"GetItem"}},
		{Name: store.TableIdempotency, Actions: []string{"GetItem", "UpdateItem"}},
		{Name: store.TableSessions, Actions: []string{"GetItem", "UpdateItem"}},
	},
	Grants: signingKeys,
}

// signingKeys is every checkout function's read of the session-signing keys
// (an SSM SecureString, decrypted through SSM only: the template's
// SessionSigningSecretReadPolicy).
var signingKeys = []registry.Grant{{Policy: "!Ref SessionSigningSecretReadPolicy"}}

// paymentTables are the advanced flow's and the drop-in's grants: both
// record payments, events and session changes in one transaction.
var paymentTables = []registry.Table{
	// Keys, and the card keyring (shared/domain/cse.RingKey) that opens
	// encrypted card fields (its private halves in KMS: DirectCardKey's
	// policy names the card-taking functions' roles).
	{Name: store.TableAccounts, Actions: []string{"GetItem"}},
	{Name: store.TableIdempotency, Actions: []string{"GetItem", "UpdateItem"}},
	{Name: store.TableSessions, Actions: []string{"GetItem", "UpdateItem", "ConditionCheckItem"}},
	// Payments, card tokens and customers (shared/domain/vault): a payment that
	// saves a card of a new shopper creates its customer; Query reads a
	// shopper's tokens and, creating its customer, its legacy stored cards,
	// which the same write deletes (DeleteItem).
	{Name: store.TablePayments, Actions: []string{"GetItem", "UpdateItem", "Query", "DeleteItem"}},
	{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
	// An authorisation in automatic capture mode is also the capture: its
	// ledger entries and balances (shared/domain/ledger) join its transaction.
	{Name: store.TableLedger, Actions: []string{"UpdateItem"}},
}

// PaymentsGroup is the CheckoutPaymentsFunction: the advanced flow.
var PaymentsGroup = registry.Group{
	Function: "CheckoutPaymentsFunction", Dir: "checkout-payments", OpenAPI: "paths-checkout.json", MoneyPath: true,
	Routes: []registry.Route{
		{Method: "POST", Path: "/v2/paymentMethods", Auth: httpapi.AuthSecret},
		{Method: "POST", Path: "/v2/payments", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
		{Method: "POST", Path: "/v2/payments/details", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
	},
	Tables: paymentTables,
	Grants: signingKeys,
}

// ClientGroup is the CheckoutClientFunction: the drop-in's calls, with a
// client key from an allowed Origin and the session's sessionData.
// Its OPTIONS routes answer the browser's CORS preflights (cors.go), which
// carry no key: they read the session and its account's key records (the
// accounts table's Query).
var ClientGroup = registry.Group{
	Function: "CheckoutClientFunction", Dir: "checkout-client", OpenAPI: "paths-checkout.json", MoneyPath: true,
	Routes: []registry.Route{
		{Method: "POST", Path: "/v2/client/sessions/{id}/setup", Auth: httpapi.AuthClient},
		{Method: "POST", Path: "/v2/client/sessions/{id}/paymentMethods", Auth: httpapi.AuthClient},
		{Method: "POST", Path: "/v2/client/sessions/{id}/payments", Auth: httpapi.AuthClient, Idempotency: httpapi.IdemInlineOptional},
		{Method: "POST", Path: "/v2/client/sessions/{id}/payments/details", Auth: httpapi.AuthClient, Idempotency: httpapi.IdemInlineOptional},
		{Method: "OPTIONS", Path: "/v2/client/sessions/{id}/setup"},
		{Method: "OPTIONS", Path: "/v2/client/sessions/{id}/paymentMethods"},
		{Method: "OPTIONS", Path: "/v2/client/sessions/{id}/payments"},
		{Method: "OPTIONS", Path: "/v2/client/sessions/{id}/payments/details"},
	},
	Tables: []registry.Table{
		// Keys, the card keyring (the setup's public key; the keys that open
		// encrypted card fields) and, for preflights, the account's keys.
		{Name: store.TableAccounts, Actions: []string{"GetItem", "Query"}},
		{Name: store.TableIdempotency, Actions: []string{"GetItem", "UpdateItem"}},
		{Name: store.TableSessions, Actions: []string{"GetItem", "UpdateItem", "ConditionCheckItem"}},
		// As paymentTables: payments, card tokens and customers, a legacy
		// stored card's migration deleting it (DeleteItem).
		{Name: store.TablePayments, Actions: []string{"GetItem", "UpdateItem", "Query", "DeleteItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
		{Name: store.TableLedger, Actions: []string{"UpdateItem"}},
	},
	Grants: signingKeys,
}

// TestHelpersGroup is the CheckoutTestHelpersFunction (test keys only).
var TestHelpersGroup = registry.Group{
	Function: "CheckoutTestHelpersFunction", Dir: "checkout-testhelpers", OpenAPI: "paths-checkout.json",
	Routes: []registry.Route{
		{Method: "POST", Path: "/test-helpers/payments/{id}/challenge", Auth: httpapi.AuthSecret, TestOnly: true},
	},
	Tables: []registry.Table{
		{Name: store.TableAccounts, Actions: []string{"GetItem"}},
		{Name: store.TableSessions, Actions: []string{"GetItem", "UpdateItem", "ConditionCheckItem"}},
		// A challenge passed saves the card its payment asked to keep, as
		// /payments/details does (paymentTables).
		{Name: store.TablePayments, Actions: []string{"GetItem", "UpdateItem", "Query", "DeleteItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
		// A challenge passed authorises, and in automatic mode captures.
		{Name: store.TableLedger, Actions: []string{"UpdateItem"}},
	},
	Grants: signingKeys,
}

// ExpirerGroup is the CheckoutSessionExpirerFunction: every ExpireInterval
// it stores the expiry of sessions past expiresAt with their
// checkout.session.expired events (expire.go). It reads no signing key.
var ExpirerGroup = registry.Group{
	Function: "CheckoutSessionExpirerFunction", Dir: "checkout-session-expirer", Every: ExpireInterval,
	Timeout: 30 * time.Second,
	Tables: []registry.Table{
		// Query the expiry index, read each session, then one
		// TransactWriteItems: the session at its version, the live marker's
		// absence, the entry's removal and the event (DeleteItem alone for
		// an entry of a session that ended otherwise).
		{Name: store.TableSessions, Actions: []string{"GetItem", "Query", "UpdateItem", "DeleteItem", "ConditionCheckItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
	},
}

// Area is checkout: sessions, and the payment records (shared/domain/payments) it
// keeps in the payments table. Its stored payment methods are the card
// tokens of shared/domain/vault, whose keys the customers area declares.
var Area = registry.Area{
	Name:   "checkout",
	Groups: []registry.Group{SessionsGroup, PaymentsGroup, ClientGroup, TestHelpersGroup, ExpirerGroup},
	Keys: []registry.Key{
		{Table: store.TableSessions, Prefix: sessionKey("").PK, What: "sessions and their live markers"},
		{Table: store.TableSessions, Prefix: expiryIndex.Prefix, What: "the session expiry index shards"},
		{Table: store.TablePayments, Prefix: payments.Key("", "").PK, What: "payment records"},
		{Table: store.TableAccounts, Prefix: "config#session-signing-secret", What: "the local sessionData signing secret (checkout/sessiondata)"},
	},
}

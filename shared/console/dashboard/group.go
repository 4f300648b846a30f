package dashboard

import (
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
)

// get, post and moneyForm are the dashboard's three kinds of route: a page; a
// form (an HTML form's body, CSRF-checked, owners and developers only); a
// form that moves money or creates a record, whose service writes the
// form's idempotency key in its transaction (an Idempotency-Key header,
// when a script sends one, is honoured as on the API).
func get(path string) registry.Route { return registry.Route{Method: "GET", Path: path, Page: true} }
func post(path string) registry.Route {
	return registry.Route{Method: "POST", Path: path, Form: true}
}

// claimForm is a form that creates something through a service that takes
// no idempotency call: the dashboard claims the form's key around it (the
// lease mode; an Idempotency-Key header is honoured the same way).
func claimForm(path string) registry.Route {
	return registry.Route{Method: "POST", Path: path, Form: true, Idempotency: httpapi.IdemOptional}
}

func moneyForm(path string) registry.Route {
	return registry.Route{Method: "POST", Path: path, Form: true, Idempotency: httpapi.IdemInlineOptional}
}

// DashboardGroup is the DashboardFunction: the merchant dashboard's pages
// and forms under /dashboard, signed in with a dashboard user's session
// cookie (no API key), and the documentation under /docs (public). It refunds, captures and cancels payments, so it is
// a money path.
var DashboardGroup = registry.Group{
	Function: "DashboardFunction", Dir: "dashboard", OpenAPI: "paths-dashboard.json", MoneyPath: true,
	Routes: []registry.Route{
		get("/dashboard"),
		get("/dashboard/sign-in"),
		post("/dashboard/sign-in"),
		post("/dashboard/sign-out"),
		post("/dashboard/sign-out-everywhere"),
		{Method: "GET", Path: "/dashboard/static/{file}"}, // files, not pages
		get("/dashboard/payments"),
		get("/dashboard/payments/{id}"),
		moneyForm("/dashboard/payments/{id}/capture"),
		moneyForm("/dashboard/payments/{id}/cancel"),
		moneyForm("/dashboard/payments/{id}/refund"),
		get("/dashboard/payment-links"),
		moneyForm("/dashboard/payment-links"),
		moneyForm("/dashboard/payment-links/{id}/cancel"),
		get("/dashboard/gate/orders"),
		get("/dashboard/gate/orders/{id}"),
		get("/dashboard/gate/balance"),
		get("/dashboard/wallet"),
		get("/dashboard/payouts"),
		moneyForm("/dashboard/payouts"),
		get("/dashboard/payouts/{id}"),
		moneyForm("/dashboard/payouts/{id}/cancel"),
		moneyForm("/dashboard/payout-cards"),
		post("/dashboard/payout-cards/{id}/delete"),
		get("/dashboard/beneficiaries"),
		moneyForm("/dashboard/beneficiaries"),
		get("/dashboard/beneficiaries/{id}"),
		moneyForm("/dashboard/beneficiaries/{id}"),
		moneyForm("/dashboard/beneficiaries/{id}/transfer"),
		get("/dashboard/payment-orders"),
		get("/dashboard/payment-orders/{id}"),
		get("/dashboard/distributions"),
		get("/dashboard/distributions/{id}"),
		get("/dashboard/invoices"),
		moneyForm("/dashboard/invoices"),
		get("/dashboard/invoices/{id}"),
		moneyForm("/dashboard/invoices/{id}/cancel"),
		get("/dashboard/disputes"),
		get("/dashboard/disputes/{id}"),
		moneyForm("/dashboard/disputes/{id}/evidence"),
		moneyForm("/dashboard/disputes/{id}/submit"),
		moneyForm("/dashboard/disputes/{id}/accept"),
		get("/dashboard/developers/api-keys"),
		claimForm("/dashboard/developers/api-keys"),
		claimForm("/dashboard/developers/api-keys/{id}/roll"),
		post("/dashboard/developers/api-keys/{id}/revoke"),
		get("/dashboard/developers/api-version"),
		post("/dashboard/developers/api-version"),
		get("/dashboard/developers/webhooks"),
		moneyForm("/dashboard/developers/webhooks"),
		get("/dashboard/developers/webhooks/{id}"),
		post("/dashboard/developers/webhooks/{id}/resend"),
		post("/dashboard/developers/webhooks/{id}/update"),
		post("/dashboard/developers/webhooks/{id}/disable"),
		post("/dashboard/developers/webhooks/{id}/enable"),
		moneyForm("/dashboard/developers/webhooks/{id}/roll-secret"),
		get("/dashboard/developers/events"),
		get("/dashboard/developers/events/{id}"),
		post("/dashboard/developers/events/{id}/resend"),
		post("/dashboard/switch-account"),
		get("/dashboard/settings/security"),
		post("/dashboard/settings/security/totp"),
		get("/dashboard/audit-log"),
		// The documentation: the guides and the API reference, public
		// pages (routes_docs.go).
		get("/docs"),
		get("/docs/api"),
		get("/docs/{page}"),
	},
	Tables: []registry.Table{
		// Users, the audit log, accounts and API keys (create, roll,
		// revoke, default version), webhook endpoints and their attempts.
		{Name: store.TableAccounts, Actions: []string{"GetItem", "Query", "UpdateItem", "DeleteItem"}},
		// Sessions and the sign-in attempt counters.
		{Name: store.TableSessions, Actions: []string{"GetItem", "UpdateItem", "DeleteItem"}},
		// Money forms' keys (written in the service's transaction); key
		// forms' claims (released when the form fails).
		{Name: store.TableIdempotency, Actions: []string{"GetItem", "UpdateItem", "DeleteItem"}},
		// Payments, payment links and wallet transactions (as their APIs).
		{Name: store.TablePayments, Actions: []string{"GetItem", "Query", "UpdateItem", "DeleteItem"}},
		// Gate orders (read only).
		{Name: store.TableOrders, Actions: []string{"GetItem", "Query"}},
		// Balances (the merchant's, the Gate's) and deposits; a capture's
		// or refund's ledger entries.
		{Name: store.TableLedger, Actions: []string{"GetItem", "Query", "UpdateItem"}},
		// A change's event record; the events a resend reads.
		{Name: store.TableEvents, Actions: []string{"GetItem", "Query", "UpdateItem"}},
		// Payouts, beneficiaries, invoices and disputes: an invoice's
		// cancel and a dispute's close remove their index entries.
		{Name: store.TableLedger, Actions: []string{"DeleteItem"}},
	},
	// A resend queues a delivery, as the events API's does.
	// A payout from the payouts page queues it for the payouts sender.
	Queues: []registry.Queue{{Name: queue.Webhooks, Access: registry.Send},
		{Name: queue.Payouts, Access: registry.Send}},
}

// Area is the dashboard: users, sessions, sign-in counters, audit log.
var Area = registry.Area{
	Name:   "dashboard",
	Groups: []registry.Group{DashboardGroup},
	Keys: []registry.Key{
		{Table: store.TableAccounts, Prefix: "dashuser#", What: "dashboard users by email"},
		{Table: store.TableAccounts, Prefix: "dashusers#", What: "each account's dashboard users"},
		{Table: store.TableAccounts, Prefix: "dashaudit#", What: "each account's dashboard audit log"},
		{Table: store.TableSessions, Prefix: "dashsess#", What: "dashboard sessions"},
		{Table: store.TableSessions, Prefix: "dashlimit#", What: "dashboard sign-in attempt counters"},
	},
}

package links

import (
	"strings"
	"time"

	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/store"
)

// APIGroup is the PaymentLinksFunction: the merchant's payment links API.
// It moves no money (the page takes the payment), so it is not a money path.
var APIGroup = registry.Group{
	Function: "PaymentLinksFunction", Dir: "payment-links", OpenAPI: "paths-links.json",
	Routes: []registry.Route{
		{Method: "POST", Path: "/v1/payment-links", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
		{Method: "GET", Path: "/v1/payment-links", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/v1/payment-links/statistics", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/v1/payment-links/by-order-reference/{order_reference}", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/v1/payment-links/{id}", Auth: httpapi.AuthSecret},
		{Method: "POST", Path: "/v1/payment-links/{id}/cancel", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
		{Method: "POST", Path: "/v1/payment-links/{id}/expiration", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
		// The Adyen face (routes_adyen.go): the same links in Adyen Checkout v71's shapes.
		{Method: "POST", Path: "/v2/paymentLinks", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
		{Method: "GET", Path: "/v2/paymentLinks/{linkId}", Auth: httpapi.AuthSecret},
		{Method: "PATCH", Path: "/v2/paymentLinks/{linkId}", Auth: httpapi.AuthSecret},
	},
	Tables: []registry.Table{
		// The API key, and the merchant's name read once when a link is created.
		{Name: store.TableAccounts, Actions: []string{"GetItem"}},
		{Name: store.TableIdempotency, Actions: []string{"GetItem", "UpdateItem"}},
		// Links, their copies, indexes and counters: GetItem, Query (lists,
		// statistics), UpdateItem (puts and counter adds), DeleteItem (an
		// expiry entry that moves or leaves).
		{Name: store.TablePayments, Actions: []string{"GetItem", "Query", "UpdateItem", "DeleteItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
	},
}

// PageGroup is the HostedPageFunction: the page at a link's url, the calls
// its drop-in makes to pay the link (no key: the link's url is the
// capability, and the page shows nothing but the amount, the description
// and the merchant's name), the drop-in's versioned script and stylesheet,
// and the sandbox issuer's 3-D Secure challenge screen. It takes money.
var PageGroup = registry.Group{
	Function: "HostedPageFunction", Dir: "hosted-page", OpenAPI: "paths-hosted-page.json", MoneyPath: true,
	Routes: []registry.Route{
		{Method: "GET", Path: "/pay/{id}", Page: true},
		{Method: "POST", Path: "/pay/{id}/session"},
		{Method: "POST", Path: "/pay/{id}/sessions/{session_id}/setup"},
		{Method: "POST", Path: "/pay/{id}/sessions/{session_id}/payments"},
		{Method: "POST", Path: "/pay/{id}/sessions/{session_id}/payments/details"},
		{Method: "GET", Path: "/dropin/{version}/{file}"},
		{Method: "GET", Path: "/sandbox/3ds2/challenge", Page: true},
	},
	Tables: []registry.Table{
		// The card keyring (shared/domain/cse.RingKey): the setup's public
		// key, and the keys that open the card fields the page encrypts
		// (their private halves in KMS: DirectCardKey's policy names this
		// function's role).
		{Name: store.TableAccounts, Actions: []string{"GetItem"}},
		// The link (read per request; written with a new session, or paid in
		// the payment's transaction with its counters and the expiry entry's
		// removal) and the payment records and their indexes.
		{Name: store.TablePayments, Actions: []string{"GetItem", "UpdateItem", "DeleteItem"}},
		{Name: store.TableSessions, Actions: []string{"GetItem", "UpdateItem", "ConditionCheckItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
		// A payment authorised in automatic capture mode is also captured:
		// its ledger entries and balances (shared/domain/ledger) join its write.
		{Name: store.TableLedger, Actions: []string{"UpdateItem"}},
	},
	// The session-signing keys (checkout's SessionSigningSecretReadPolicy).
	Grants: []registry.Grant{{Policy: "!Ref SessionSigningSecretReadPolicy"}},
}

// ExpirerGroup is the PaymentLinkExpirerFunction: every ExpireInterval it
// stores the expiry of active links past expires_at with their
// payment_link.expired events (expire.go).
var ExpirerGroup = registry.Group{
	Function: "PaymentLinkExpirerFunction", Dir: "payment-link-expirer", Every: ExpireInterval,
	Timeout: 30 * time.Second,
	Tables: []registry.Table{
		{Name: store.TablePayments, Actions: []string{"GetItem", "Query", "UpdateItem", "DeleteItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
	},
}

// Area is payment links: links, their copies, indexes and counters in the
// payments table, beside the payments that pay them.
var Area = registry.Area{
	Name:   "links",
	Groups: []registry.Group{APIGroup, PageGroup, ExpirerGroup},
	Keys: []registry.Key{
		{Table: store.TablePayments, Prefix: recordKey("").PK, What: "payment links"},
		{Table: store.TablePayments, Prefix: accountPK(""), What: "each account's copies of its payment links"},
		{Table: store.TablePayments, Prefix: strings.TrimSuffix(refPK("", ""), "#"), What: "payment links by order reference"},
		{Table: store.TablePayments, Prefix: expiryIndex.Prefix, What: "the payment link expiry index shards"},
		{Table: store.TablePayments, Prefix: statPK(""), What: "payment link statistics counters"},
	},
}

package direct

import (
	"github.com/paygate/paygate/shared/domain/cse"
	"github.com/paygate/paygate/shared/domain/wallettokens"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/store"
)

// PaymentsGroup is the DirectPaymentsFunction: the public keys and the
// host-to-host payment. Its role is one of the card-taking functions' that
// may use the card keys in KMS (kms:Decrypt, granted by the key's own policy
// in template.yaml, DirectCardKey), so no grant here names KMS.
var PaymentsGroup = registry.Group{
	Function: "DirectPaymentsFunction", Dir: "direct-payments", OpenAPI: "paths-direct.json", MoneyPath: true,
	Routes: []registry.Route{
		{Method: "GET", Path: "/v1/payments/direct/keys", Auth: httpapi.AuthSecret},
		{Method: "POST", Path: "/v1/payments/direct", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline},
	},
	Tables: []registry.Table{
		// Keys, and the keyring (cse.RingKey).
		{Name: store.TableAccounts, Actions: []string{"GetItem"}},
		{Name: store.TableIdempotency, Actions: []string{"GetItem", "UpdateItem"}},
		// A wallet's payment token is read (GetItem) and marked used in the
		// payment's transaction; the payment and its index entries are
		// puts (UpdateItem).
		{Name: store.TablePayments, Actions: []string{"GetItem", "UpdateItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
		// Captured at authorisation (automatic capture): its ledger entries.
		{Name: store.TableLedger, Actions: []string{"UpdateItem"}},
	},
	// A payment waiting for 3-D Secure seals its redirect's paymentData with
	// checkout's session-signing keys.
	Grants: []registry.Grant{{Policy: "!Ref SessionSigningSecretReadPolicy"}},
}

// Area is direct payments: the keyring and the wallets' payment tokens
// (which shared/pay/walletpay writes through this package).
var Area = registry.Area{
	Name:   "direct",
	Groups: []registry.Group{PaymentsGroup},
	Keys: []registry.Key{
		{Table: store.TableAccounts, Prefix: cse.RingKey.PK, What: "the direct-payment keyring (public keys and where their private halves are)"},
		{Table: store.TablePayments, Prefix: wallettokens.TokensPK(""), What: "wallet payment tokens"},
		{Table: store.TablePayments, Prefix: "wclaim#", What: "wallet transaction claims (one per Apple Pay transaction or Google Pay message, any account)"},
	},
}

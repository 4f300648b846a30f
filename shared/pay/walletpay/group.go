package walletpay

import (
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/store"
)

// SessionsGroup is the WalletSessionsFunction: Apple Pay and Google Pay
// sessions and decodes, and the test token helpers. It moves no money
// (a decoded token is paid by the DirectPaymentsFunction) and decrypts
// nothing it stores: it seals decoded cards to the direct-payment keys'
// public halves, and has no KMS grant.
var SessionsGroup = registry.Group{
	Function: "WalletSessionsFunction", Dir: "wallet-sessions", OpenAPI: "paths-walletpay.json",
	Routes: []registry.Route{
		{Method: "POST", Path: "/v1/applepay/sessions", Auth: httpapi.AuthSecret},
		{Method: "POST", Path: "/v1/applepay/decode", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
		{Method: "POST", Path: "/v1/googlepay/sessions", Auth: httpapi.AuthSecret},
		{Method: "POST", Path: "/v1/googlepay/decode", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
		{Method: "POST", Path: "/test-helpers/wallet-tokens/applepay", Auth: httpapi.AuthSecret, TestOnly: true},
		{Method: "POST", Path: "/test-helpers/wallet-tokens/googlepay", Auth: httpapi.AuthSecret, TestOnly: true},
	},
	Tables: []registry.Table{
		// Keys, and the direct-payment keyring (public halves) to seal with.
		{Name: store.TableAccounts, Actions: []string{"GetItem"}},
		{Name: store.TableIdempotency, Actions: []string{"GetItem", "UpdateItem"}},
		// Payment tokens: put-if-absent (UpdateItem), read when decoded
		// again (GetItem).
		{Name: store.TablePayments, Actions: []string{"GetItem", "UpdateItem"}},
	},
	// Live mode's wallet keys and merchant identity certificate: one
	// SecureString parameter, decrypted through SSM only.
	Grants: []registry.Grant{{Policy: "!Ref WalletSecretsReadPolicy"}},
}

// Area is the wallets: Apple Pay and Google Pay. Their payment tokens are
// the direct area's records (shared/pay/direct), written through it.
var Area = registry.Area{
	Name:   "walletpay",
	Groups: []registry.Group{SessionsGroup},
}

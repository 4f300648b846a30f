package splits

import (
	"strings"

	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/store"
)

// SplitRequestsGroup is the SplitRequestsFunction: split requests, which
// divide a payment's captures between the merchant and its partners.
var SplitRequestsGroup = registry.Group{
	Function: "SplitRequestsFunction", Dir: "split-requests", OpenAPI: "paths-split-requests.json", MoneyPath: true,
	Routes: []registry.Route{
		{Method: "POST", Path: "/v1/split-requests", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
		{Method: "GET", Path: "/v1/split-requests", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/v1/split-requests/{id}", Auth: httpapi.AuthSecret},
		{Method: "POST", Path: "/v1/split-requests/{id}", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
		{Method: "DELETE", Path: "/v1/split-requests/{id}", Auth: httpapi.AuthSecret},
	},
	Tables: []registry.Table{
		{Name: store.TableAccounts, Actions: []string{"GetItem"}},
		{Name: store.TableIdempotency, Actions: []string{"GetItem", "UpdateItem"}},
		// The payment (GetItem; an order reference's index: Query), written
		// with the split request's copy (UpdateItem), which a delete removes
		// (DeleteItem); the copies are read and listed (GetItem, Query).
		{Name: store.TablePayments, Actions: []string{"GetItem", "Query", "UpdateItem", "DeleteItem"}},
	},
}

// Area is the split requests: their copies beside the payments that carry
// them (payments.SplitKey).
var Area = registry.Area{
	Name:   "splits",
	Groups: []registry.Group{SplitRequestsGroup},
	Keys: []registry.Key{
		{Table: store.TablePayments, Prefix: strings.TrimSuffix(payments.SplitPK("x"), "x"), What: "split requests (copies of the payments' splits)"},
	},
}

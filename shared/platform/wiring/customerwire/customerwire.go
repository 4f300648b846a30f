// Package customerwire builds the CustomersFunction: customers, card tokens
// and recurring payments. It is apart from paywire so the transactions
// functions do not link checkout, which a recurring payment needs.
package customerwire

import (
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/pay/customers"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/wiring/connect"
)

// Customers builds the CustomersFunction. Its checkout service reads the
// session-signing keys as checkout's functions do (checkout.FromDeps): a
// recurring payment waiting for the shopper seals its action with them, and
// checkout's /v2/payments/details opens it.
func Customers(d *app.Deps) (httpapi.Group, error) {
	co, err := checkout.FromDeps(d, connect.Cards(d))
	if err != nil {
		return httpapi.Group{}, err
	}
	pol, err := ledger.PolicyFromEnv(d.Config.Getenv)
	if err != nil {
		return httpapi.Group{}, err
	}
	return customers.New(customers.Config{Store: d.Store, Checkout: co, Ledger: pol, Clock: d.Clock, Log: d.Log}).Group(), nil
}

package customers

import (
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/connect"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// BuildCustomers builds the CustomersFunction. Its checkout service reads
// the session-signing keys as checkout's functions do (checkout.FromDeps):
// a recurring payment waiting for the shopper seals its action with them,
// and checkout's /v2/payments/details opens it.
func BuildCustomers(d *app.Deps) (httpapi.Group, error) {
	set := connect.For(d)
	proc := set.Cards
	co, err := checkout.FromDeps(d, set)
	if err != nil {
		return httpapi.Group{}, err
	}
	pol, err := ledger.PolicyFromEnv(d.Config.Getenv)
	if err != nil {
		return httpapi.Group{}, err
	}
	return New(Config{Store: d.Store, Checkout: co, Ledger: pol, Processor: proc, Clock: d.Clock, Log: d.Log}).Group(), nil
}

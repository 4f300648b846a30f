// Package dashwire builds the merchant dashboard's function from the same
// services the API functions serve.
package dashwire

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/balance"
	"github.com/paygate/paygate/shared/dashboard"
	"github.com/paygate/paygate/shared/disputes"
	gateledger "github.com/paygate/paygate/shared/gate/ledger"
	"github.com/paygate/paygate/shared/gate/orders"
	"github.com/paygate/paygate/shared/httpapi"
	"github.com/paygate/paygate/shared/invoices"
	"github.com/paygate/paygate/shared/ledger"
	"github.com/paygate/paygate/shared/links"
	"github.com/paygate/paygate/shared/transactions"
	"github.com/paygate/paygate/shared/wallet"
	"github.com/paygate/paygate/shared/webhooks"
	"github.com/paygate/paygate/shared/wiring/beneficiarywire"
)

// Service builds the dashboard over d.
func Service(d *app.Deps) (*dashboard.Service, error) {
	getenv := d.Config.Getenv
	pol, err := ledger.PolicyFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	fee, err := disputes.FeeFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	public := ""
	if getenv != nil {
		public = getenv(links.PublicURLEnv)
	}
	return dashboard.New(dashboard.Config{
		Store: d.Store, Accounts: d.Accounts, Keys: d.Keys, Idem: d.Idem, Clock: d.Clock, Log: d.Log,
		Payments:     transactions.New(transactions.Config{Store: d.Store, Clock: d.Clock, Log: d.Log, Ledger: pol}),
		Links:        links.New(links.Config{Store: d.Store, Accounts: d.Accounts, Clock: d.Clock, Log: d.Log, PublicURL: public}),
		Webhooks:     webhooks.New(d.Store, d.Clock).WithQueue(d.Queue),
		Balance:      balance.New(balance.Config{Store: d.Store, Queue: d.Queue, Clock: d.Clock, Log: d.Log}),
		Orders:       orders.New(orders.Config{Store: d.Store, Queue: d.Queue, Clock: d.Clock, Log: d.Log}),
		Gate:         gateledger.New(d.Store, d.Clock),
		Wallet:       wallet.New(wallet.Config{Store: d.Store, Queue: d.Queue, Clock: d.Clock, Log: d.Log, Ledger: pol}),
		LinksBaseURL: public,

		Beneficiaries: beneficiarywire.Service(d),
		Invoices:      invoices.New(invoices.Config{Store: d.Store, Clock: d.Clock, Log: d.Log, Ledger: pol}),
		Disputes:      disputes.New(disputes.Config{Store: d.Store, Clock: d.Clock, Log: d.Log, Fee: fee}),
	}), nil
}

// Dashboard builds the DashboardFunction.
func Dashboard(d *app.Deps) (httpapi.Group, error) {
	s, err := Service(d)
	if err != nil {
		return httpapi.Group{}, err
	}
	return s.Group(), nil
}

// Package dashwire builds the merchant dashboard's function from the same
// services the API functions serve.
package dashwire

import (
	"github.com/paygate/paygate/shared/console/dashboard"
	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/gate/orders"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/pay/balance"
	"github.com/paygate/paygate/shared/pay/disputes"
	"github.com/paygate/paygate/shared/pay/invoices"
	"github.com/paygate/paygate/shared/pay/links"
	"github.com/paygate/paygate/shared/pay/transactions"
	"github.com/paygate/paygate/shared/pay/wallet"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/wiring/beneficiarywire"
	"github.com/paygate/paygate/shared/platform/wiring/connect"
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
		Balance:      balance.New(balance.Config{Store: d.Store, Queue: d.Queue, Clock: d.Clock, Log: d.Log, Processor: connect.Payouts(d)}),
		Orders:       orders.New(orders.Config{Store: d.Store, Queue: d.Queue, Clock: d.Clock, Log: d.Log, Test: connect.Supplier(d)}),
		Gate:         prepaid.New(d.Store, d.Clock),
		Wallet:       wallet.New(wallet.Config{Store: d.Store, Queue: d.Queue, Clock: d.Clock, Log: d.Log, Ledger: pol, Provider: connect.PhoneWallet(d)}),
		LinksBaseURL: public,

		Beneficiaries: beneficiarywire.Service(d),
		Invoices:      invoices.New(invoices.Config{Store: d.Store, Clock: d.Clock, Log: d.Log, Ledger: pol}),
		Disputes:      disputes.New(disputes.Config{Store: d.Store, Clock: d.Clock, Log: d.Log, Fee: fee, Desk: connect.DisputeDesk(d)}),
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

package dashboard

import (
	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/gate/orders"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/pay/balance"
	"github.com/paygate/paygate/shared/pay/beneficiaries"
	"github.com/paygate/paygate/shared/pay/disputes"
	"github.com/paygate/paygate/shared/pay/invoices"
	"github.com/paygate/paygate/shared/pay/links"
	"github.com/paygate/paygate/shared/pay/transactions"
	"github.com/paygate/paygate/shared/pay/wallet"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/connect"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// FromDeps is the dashboard over d, from the same services the API
// functions build.
func FromDeps(d *app.Deps) (*Service, error) {
	payments, err := transactions.FromDeps(d)
	if err != nil {
		return nil, err
	}
	w, err := wallet.FromDeps(d)
	if err != nil {
		return nil, err
	}
	inv, err := invoices.FromDeps(d)
	if err != nil {
		return nil, err
	}
	wh, err := webhooks.FromDeps(d)
	if err != nil {
		return nil, err
	}
	disp, err := disputes.FromDeps(d)
	if err != nil {
		return nil, err
	}
	lk := links.FromDeps(d)
	return New(Config{
		Store: d.Store, Accounts: d.Accounts, Keys: d.Keys, Idem: d.Idem, Clock: d.Clock, Log: d.Log, Secrets: d.Secrets,
		Payments:      payments,
		Links:         lk,
		Webhooks:      wh,
		Balance:       balance.FromDeps(d),
		Orders:        orders.New(orders.Config{Store: d.Store, Queue: d.Queue, Clock: d.Clock, Log: d.Log, Test: connect.For(d).Supplier}),
		Gate:          prepaid.New(d.Store, d.Clock),
		Wallet:        w,
		LinksBaseURL:  links.PublicURLOf(d),
		Beneficiaries: beneficiaries.FromDeps(d),
		Invoices:      inv,
		Disputes:      disp,
	}), nil
}

// BuildDashboard builds the DashboardFunction.
func BuildDashboard(d *app.Deps) (httpapi.Group, error) {
	s, err := FromDeps(d)
	if err != nil {
		return httpapi.Group{}, err
	}
	return s.Group(), nil
}

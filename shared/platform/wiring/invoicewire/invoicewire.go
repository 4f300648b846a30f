// Package invoicewire builds the bank invoices' functions: the invoice
// routes and the expirer.
package invoicewire

import (
	"context"

	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/pay/invoices"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

func service(d *app.Deps) (*invoices.Service, error) {
	pol, err := ledger.PolicyFromEnv(d.Config.Getenv)
	if err != nil {
		return nil, err
	}
	return invoices.New(invoices.Config{Store: d.Store, Clock: d.Clock, Log: d.Log, Ledger: pol}), nil
}

// Invoices builds the InvoicesFunction.
func Invoices(d *app.Deps) (httpapi.Group, error) {
	svc, err := service(d)
	if err != nil {
		return httpapi.Group{}, err
	}
	return svc.Group(), nil
}

// InvoiceExpiry builds the InvoiceExpiryFunction's task.
func InvoiceExpiry(d *app.Deps) (func(context.Context) error, error) {
	svc, err := service(d)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		_, err := svc.Expire(ctx)
		return err
	}, nil
}

package invoices

import (
	"context"

	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// FromDeps is the invoices service over d.
func FromDeps(d *app.Deps) (*Service, error) {
	pol, err := ledger.PolicyFromEnv(d.Config.Getenv)
	if err != nil {
		return nil, err
	}
	return New(Config{Store: d.Store, Clock: d.Clock, Log: d.Log, Ledger: pol}), nil
}

// BuildInvoices builds the InvoicesFunction.
func BuildInvoices(d *app.Deps) (httpapi.Group, error) {
	svc, err := FromDeps(d)
	if err != nil {
		return httpapi.Group{}, err
	}
	return svc.Group(), nil
}

// BuildInvoiceExpiry builds the InvoiceExpiryFunction's task.
func BuildInvoiceExpiry(d *app.Deps) (func(context.Context) error, error) {
	svc, err := FromDeps(d)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		_, err := svc.Expire(ctx)
		return err
	}, nil
}

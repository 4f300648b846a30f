// Package paywire builds the Pay API's functions: the transactions routes,
// their Adyen face (checkout modifications), the authorisation expirer and
// the split requests.
package paywire

import (
	"context"

	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/pay/splits"
	"github.com/paygate/paygate/shared/pay/transactions"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

func service(d *app.Deps) (*transactions.Service, error) {
	pol, err := ledger.PolicyFromEnv(d.Config.Getenv)
	if err != nil {
		return nil, err
	}
	return transactions.New(transactions.Config{Store: d.Store, Clock: d.Clock, Log: d.Log, Ledger: pol}), nil
}

// Transactions builds the TransactionsFunction.
func Transactions(d *app.Deps) (httpapi.Group, error) {
	svc, err := service(d)
	if err != nil {
		return httpapi.Group{}, err
	}
	return svc.Group(), nil
}

// CheckoutModifications builds the CheckoutModificationsFunction: the Adyen
// face of the same service.
func CheckoutModifications(d *app.Deps) (httpapi.Group, error) {
	svc, err := service(d)
	if err != nil {
		return httpapi.Group{}, err
	}
	return svc.ModificationsGroup(), nil
}

// AuthorizationExpirer builds the AuthorizationExpirerFunction's task.
func AuthorizationExpirer(d *app.Deps) (func(context.Context) error, error) {
	svc, err := service(d)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		_, err := svc.Expire(ctx)
		return err
	}, nil
}

// SplitRequests builds the SplitRequestsFunction.
func SplitRequests(d *app.Deps) (httpapi.Group, error) {
	return splits.New(splits.Config{Store: d.Store, Clock: d.Clock}).Group(), nil
}

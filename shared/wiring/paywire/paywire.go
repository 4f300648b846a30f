// Package paywire builds the Pay API's functions: the transactions routes,
// their Adyen face (checkout modifications) and the authorisation expirer.
package paywire

import (
	"context"

	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/httpapi"
	"github.com/paygate/paygate/shared/transactions"
)

func service(d *app.Deps) *transactions.Service {
	return transactions.New(transactions.Config{Store: d.Store, Clock: d.Clock, Log: d.Log})
}

// Transactions builds the TransactionsFunction.
func Transactions(d *app.Deps) (httpapi.Group, error) { return service(d).Group(), nil }

// CheckoutModifications builds the CheckoutModificationsFunction: the Adyen
// face of the same service.
func CheckoutModifications(d *app.Deps) (httpapi.Group, error) {
	return service(d).ModificationsGroup(), nil
}

// AuthorizationExpirer builds the AuthorizationExpirerFunction's task.
func AuthorizationExpirer(d *app.Deps) (func(context.Context) error, error) {
	svc := service(d)
	return func(ctx context.Context) error {
		_, err := svc.Expire(ctx)
		return err
	}, nil
}

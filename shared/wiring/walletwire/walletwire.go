// Package walletwire builds the wallet's functions: the wallet routes, the
// confirmation consumer and the expirer.
package walletwire

import (
	"context"

	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/httpapi"
	"github.com/paygate/paygate/shared/wallet"
)

func service(d *app.Deps) *wallet.Service {
	return wallet.New(wallet.Config{Store: d.Store, Queue: d.Queue, Clock: d.Clock, Log: d.Log})
}

// Wallet builds the WalletFunction.
func Wallet(d *app.Deps) (httpapi.Group, error) { return service(d).Group(), nil }

// WalletConfirmations builds the WalletConfirmationsFunction (queue consumer).
func WalletConfirmations(d *app.Deps) (app.SQSHandler, error) { return service(d).HandleSQS, nil }

// WalletExpirer builds the WalletExpirerFunction's task.
func WalletExpirer(d *app.Deps) (func(context.Context) error, error) {
	svc := service(d)
	return func(ctx context.Context) error {
		_, err := svc.Expire(ctx)
		return err
	}, nil
}

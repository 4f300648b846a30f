// Package walletwire builds the wallet's functions: the wallet routes, the
// confirmation consumer and the expirer.
package walletwire

import (
	"context"

	"github.com/paygate/paygate/shared/platform/wiring/connect"

	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/pay/wallet"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
)

func service(d *app.Deps) (*wallet.Service, error) {
	pol, err := ledger.PolicyFromEnv(d.Config.Getenv)
	if err != nil {
		return nil, err
	}
	return wallet.New(wallet.Config{Store: d.Store, Queue: d.Queue, Clock: d.Clock, Log: d.Log, Ledger: pol, Provider: connect.PhoneWallet(d)}), nil
}

// Wallet builds the WalletFunction.
func Wallet(d *app.Deps) (httpapi.Group, error) {
	svc, err := service(d)
	if err != nil {
		return httpapi.Group{}, err
	}
	return svc.Group(), nil
}

// WalletConfirmations builds the WalletConfirmationsFunction (queue consumer).
func WalletConfirmations(d *app.Deps) (queue.Handler, error) {
	svc, err := service(d)
	if err != nil {
		return nil, err
	}
	return svc.Consume, nil
}

// WalletExpirer builds the WalletExpirerFunction's task.
func WalletExpirer(d *app.Deps) (func(context.Context) error, error) {
	svc, err := service(d)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		_, err := svc.Expire(ctx)
		return err
	}, nil
}

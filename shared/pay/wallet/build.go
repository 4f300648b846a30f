package wallet

import (
	"context"

	"github.com/paygate/paygate/shared/platform/connect"

	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
)

// FromDeps is the wallet service over d and its connected phone-wallet
// provider.
func FromDeps(d *app.Deps) (*Service, error) {
	pol, err := ledger.PolicyFromEnv(d.Config.Getenv)
	if err != nil {
		return nil, err
	}
	return New(Config{Store: d.Store, Queue: d.Queue, Clock: d.Clock, Log: d.Log, Ledger: pol, Provider: connect.For(d).PhoneWallet}), nil
}

// BuildWallet builds the WalletFunction.
func BuildWallet(d *app.Deps) (httpapi.Group, error) {
	svc, err := FromDeps(d)
	if err != nil {
		return httpapi.Group{}, err
	}
	return svc.Group(), nil
}

// BuildWalletConfirmations builds the WalletConfirmationsFunction (queue
// consumer).
func BuildWalletConfirmations(d *app.Deps) (queue.Handler, error) {
	svc, err := FromDeps(d)
	if err != nil {
		return nil, err
	}
	return svc.Consume, nil
}

// BuildWalletExpirer builds the WalletExpirerFunction's task.
func BuildWalletExpirer(d *app.Deps) (func(context.Context) error, error) {
	svc, err := FromDeps(d)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		_, err := svc.Expire(ctx)
		return err
	}, nil
}

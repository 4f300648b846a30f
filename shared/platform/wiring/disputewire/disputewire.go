// Package disputewire builds the disputes' functions: the disputes routes
// (with the sandbox's helper that opens one) and the sweeper.
package disputewire

import (
	"context"

	"github.com/paygate/paygate/shared/platform/wiring/connect"

	"github.com/paygate/paygate/shared/pay/disputes"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

func service(d *app.Deps) (*disputes.Service, error) {
	fee, err := disputes.FeeFromEnv(d.Config.Getenv)
	if err != nil {
		return nil, err
	}
	return disputes.New(disputes.Config{Store: d.Store, Clock: d.Clock, Log: d.Log, Fee: fee, Desk: connect.DisputeDesk(d)}), nil
}

// Disputes builds the DisputesFunction.
func Disputes(d *app.Deps) (httpapi.Group, error) {
	svc, err := service(d)
	if err != nil {
		return httpapi.Group{}, err
	}
	return svc.Group(), nil
}

// DisputeSweeper builds the DisputeSweeperFunction's task.
func DisputeSweeper(d *app.Deps) (func(context.Context) error, error) {
	svc, err := service(d)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		_, err := svc.Sweep(ctx)
		return err
	}, nil
}

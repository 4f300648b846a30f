package disputes

import (
	"context"

	"github.com/paygate/paygate/shared/platform/connect"

	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// FromDeps is the disputes service over d and its connected dispute desk.
func FromDeps(d *app.Deps) (*Service, error) {
	fee, err := FeeFromEnv(d.Config.Getenv)
	if err != nil {
		return nil, err
	}
	return New(Config{Store: d.Store, Clock: d.Clock, Log: d.Log, Fee: fee, Desk: connect.For(d).DisputeDesk}), nil
}

// BuildDisputes builds the DisputesFunction.
func BuildDisputes(d *app.Deps) (httpapi.Group, error) {
	svc, err := FromDeps(d)
	if err != nil {
		return httpapi.Group{}, err
	}
	return svc.Group(), nil
}

// BuildDisputeSweeper builds the DisputeSweeperFunction's task.
func BuildDisputeSweeper(d *app.Deps) (func(context.Context) error, error) {
	svc, err := FromDeps(d)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		_, err := svc.Sweep(ctx)
		return err
	}, nil
}

package checkout

import (
	"context"

	"github.com/paygate/paygate/shared/platform/connect"

	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// build builds one checkout function group over the connected card
// processor.
func build(d *app.Deps, pick func(*Service) httpapi.Group) (httpapi.Group, error) {
	svc, err := FromDeps(d, connect.For(d).Cards)
	if err != nil {
		return httpapi.Group{}, err
	}
	return pick(svc), nil
}

// BuildCheckoutSessions builds the CheckoutSessionsFunction.
func BuildCheckoutSessions(d *app.Deps) (httpapi.Group, error) {
	return build(d, (*Service).SessionsGroup)
}

// BuildCheckoutPayments builds the CheckoutPaymentsFunction (the advanced
// flow).
func BuildCheckoutPayments(d *app.Deps) (httpapi.Group, error) {
	return build(d, (*Service).PaymentsGroup)
}

// BuildCheckoutClient builds the CheckoutClientFunction (the Drop-in's
// client-key endpoints).
func BuildCheckoutClient(d *app.Deps) (httpapi.Group, error) { return build(d, (*Service).ClientGroup) }

// BuildCheckoutTestHelpers builds the CheckoutTestHelpersFunction.
func BuildCheckoutTestHelpers(d *app.Deps) (httpapi.Group, error) {
	return build(d, (*Service).TestHelpersGroup)
}

// BuildCheckoutSessionExpirer builds the CheckoutSessionExpirerFunction's
// task: store the expiry of sessions past expiresAt, with their events. It
// needs the store alone (no signing keys).
func BuildCheckoutSessionExpirer(d *app.Deps) (func(context.Context) error, error) {
	x := NewExpirer(d.Store, d.Clock, d.Log)
	return func(ctx context.Context) error {
		_, err := x.Run(ctx)
		return err
	}, nil
}

// Package checkoutwire builds the checkout functions: sessions, the advanced
// flow, the drop-in's client-key endpoints, the sandbox test helpers and the
// session expirer.
package checkoutwire

import (
	"context"

	"github.com/paygate/paygate/shared/platform/wiring/connect"

	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// group builds one checkout function group.
func group(pick func(*checkout.Service) httpapi.Group) app.HTTPBuilder {
	return func(d *app.Deps) (httpapi.Group, error) {
		svc, err := checkout.FromDeps(d, connect.Cards(d))
		if err != nil {
			return httpapi.Group{}, err
		}
		return pick(svc), nil
	}
}

// The checkout function groups.
var (
	CheckoutSessions    = group((*checkout.Service).SessionsGroup)
	CheckoutPayments    = group((*checkout.Service).PaymentsGroup)
	CheckoutClient      = group((*checkout.Service).ClientGroup)
	CheckoutTestHelpers = group((*checkout.Service).TestHelpersGroup)
)

// CheckoutSessionExpirer builds the CheckoutSessionExpirerFunction's task:
// store the expiry of sessions past expiresAt, with their events. It needs
// the store alone (no signing keys).
func CheckoutSessionExpirer(d *app.Deps) (func(context.Context) error, error) {
	x := checkout.NewExpirer(d.Store, d.Clock, d.Log)
	return func(ctx context.Context) error {
		_, err := x.Run(ctx)
		return err
	}, nil
}

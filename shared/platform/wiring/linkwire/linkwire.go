// Package linkwire builds the payment links' functions: the links API, the
// hosted payment page (with the Drop-in's files and the sandbox challenge
// screen) and the link expirer.
package linkwire

import (
	"context"

	"github.com/paygate/paygate/shared/platform/wiring/connect"

	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/pay/links"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

func service(d *app.Deps) *links.Service {
	getenv := d.Config.Getenv
	public := ""
	if getenv != nil {
		public = getenv(links.PublicURLEnv)
	}
	return links.New(links.Config{Store: d.Store, Accounts: d.Accounts, Clock: d.Clock, Log: d.Log, PublicURL: public})
}

// PaymentLinks builds the PaymentLinksFunction.
func PaymentLinks(d *app.Deps) (httpapi.Group, error) { return service(d).APIGroup(), nil }

// HostedPage builds the HostedPageFunction: it pays links through checkout,
// so it reads the session-signing keys as checkout's functions do.
func HostedPage(d *app.Deps) (httpapi.Group, error) {
	co, err := checkout.FromDeps(d, connect.Cards(d))
	if err != nil {
		return httpapi.Group{}, err
	}
	return links.NewPager(service(d), co).PageGroup(), nil
}

// PaymentLinkExpirer builds the PaymentLinkExpirerFunction's task.
func PaymentLinkExpirer(d *app.Deps) (func(context.Context) error, error) {
	svc := service(d)
	return func(ctx context.Context) error {
		_, err := svc.Expire(ctx)
		return err
	}, nil
}

package links

import (
	"context"

	"github.com/paygate/paygate/shared/platform/connect"

	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// FromDeps is the links service over d, its pages at PublicURLOf(d).
func FromDeps(d *app.Deps) *Service {
	return New(Config{Store: d.Store, Accounts: d.Accounts, Clock: d.Clock, Log: d.Log, PublicURL: PublicURLOf(d)})
}

// PublicURLOf is d's PUBLIC_BASE_URL ("" when unset: links are built on the
// request's host).
func PublicURLOf(d *app.Deps) string {
	if d.Config.Getenv == nil {
		return ""
	}
	return d.Config.Getenv(PublicURLEnv)
}

// BuildPaymentLinks builds the PaymentLinksFunction.
func BuildPaymentLinks(d *app.Deps) (httpapi.Group, error) { return FromDeps(d).APIGroup(), nil }

// BuildHostedPage builds the HostedPageFunction: it pays links through
// checkout, so it reads the session-signing keys as checkout's functions do,
// and opens the card fields its page encrypts with the card keyring.
func BuildHostedPage(d *app.Deps) (httpapi.Group, error) {
	co, err := checkout.FromDeps(d, connect.For(d))
	if err != nil {
		return httpapi.Group{}, err
	}
	keys, err := checkout.CardKeyring(d)
	if err != nil {
		return httpapi.Group{}, err
	}
	return NewPager(FromDeps(d), co.WithCardKeys(keys)).PageGroup(), nil
}

// BuildPaymentLinkExpirer builds the PaymentLinkExpirerFunction's task.
func BuildPaymentLinkExpirer(d *app.Deps) (func(context.Context) error, error) {
	svc := FromDeps(d)
	return func(ctx context.Context) error {
		_, err := svc.Expire(ctx)
		return err
	}, nil
}

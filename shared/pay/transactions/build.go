package transactions

import (
	"context"

	"github.com/paygate/paygate/shared/platform/connect"

	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// FromDeps is the transactions service over d, posting captures by the
// ledger policy of d's environment, its modifications heard by the
// connected card processor.
func FromDeps(d *app.Deps) (*Service, error) {
	pol, err := ledger.PolicyFromEnv(d.Config.Getenv)
	if err != nil {
		return nil, err
	}
	set := connect.For(d)
	return New(Config{Store: d.Store, Clock: d.Clock, Log: d.Log, Ledger: pol, Processor: set.Cards, Connectors: set.CardConnectors}), nil
}

// BuildTransactions builds the TransactionsFunction.
func BuildTransactions(d *app.Deps) (httpapi.Group, error) {
	svc, err := FromDeps(d)
	if err != nil {
		return httpapi.Group{}, err
	}
	return svc.Group(), nil
}

// BuildCheckoutModifications builds the CheckoutModificationsFunction: the
// Adyen face of the same service.
func BuildCheckoutModifications(d *app.Deps) (httpapi.Group, error) {
	svc, err := FromDeps(d)
	if err != nil {
		return httpapi.Group{}, err
	}
	return svc.ModificationsGroup(), nil
}

// BuildAuthorizationExpirer builds the AuthorizationExpirerFunction's task:
// expire the lapsed authorisations, then send the card processor the
// modifications it has not received (Resend).
func BuildAuthorizationExpirer(d *app.Deps) (func(context.Context) error, error) {
	svc, err := FromDeps(d)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		_, err := svc.Expire(ctx)
		if _, rerr := svc.Resend(ctx); err == nil {
			err = rerr
		}
		return err
	}, nil
}

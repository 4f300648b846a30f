package direct

import (
	"fmt"

	"github.com/paygate/paygate/shared/platform/connect"

	"github.com/paygate/paygate/shared/domain/cse"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// BuildDirectPayments builds the DirectPaymentsFunction over the card
// keyring checkout's card functions share (checkout.CardKeyring).
func BuildDirectPayments(d *app.Deps) (httpapi.Group, error) {
	keys, err := checkout.CardKeyring(d)
	if err != nil {
		return httpapi.Group{}, fmt.Errorf("direct payment keys: %w", err)
	}
	return BuildDirectPaymentsWith(d, keys)
}

// BuildDirectPaymentsWith builds the group over a given keyring (the
// benchmark's KMS adapter on moto).
func BuildDirectPaymentsWith(d *app.Deps, keys *cse.Keyring) (httpapi.Group, error) {
	co, err := checkout.FromDeps(d, connect.For(d))
	if err != nil {
		return httpapi.Group{}, err
	}
	pol, err := ledger.PolicyFromEnv(d.Config.Getenv)
	if err != nil {
		return httpapi.Group{}, err
	}
	return New(Config{Store: d.Store, Checkout: co, Keys: keys, Ledger: pol, Clock: d.Clock, Log: d.Log}).Group(), nil
}

// Package directwire builds the direct payments function and the keyring
// both it and the wallet sessions function use: on AWS (STORE=dynamodb) its
// keys are KMS keys (app.Deps.CardKeys, opened by kmsapp), elsewhere PEM
// files under the data directory (localkeys).
package directwire

import (
	"context"
	"fmt"

	"github.com/paygate/paygate/shared/platform/wiring/connect"

	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/pay/direct"
	"github.com/paygate/paygate/shared/pay/direct/cse"
	"github.com/paygate/paygate/shared/pay/direct/cse/localkeys"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// Keyring is the card keyring over d's store: d's card keys backend (KMS
// in AWS) when it has one, else key files under the data directory (in
// memory when there is none).
func Keyring(d *app.Deps) *cse.Keyring {
	backend := d.CardKeys
	if backend == nil {
		dir := ""
		if d.Config.DataDir != "" {
			dir = localkeys.Dir(d.Config.DataDir)
		}
		backend = localkeys.New(dir)
	}
	return cse.NewKeyring(d.Store, backend, d.Clock)
}

func getenv(d *app.Deps) func(string) string {
	if d.Config.Getenv == nil {
		return func(string) string { return "" }
	}
	return d.Config.Getenv
}

// DirectPayments builds the DirectPaymentsFunction. Locally it makes the
// first key when there is none (make run's sandbox needs no setup); a
// deployed stack adopts the template's KMS key with the admin CLI.
func DirectPayments(d *app.Deps) (httpapi.Group, error) {
	keys := Keyring(d)
	if d.CardKeys == nil {
		if err := keys.EnsureCurrent(context.Background()); err != nil {
			return httpapi.Group{}, fmt.Errorf("direct payment keys: %w", err)
		}
	}
	return DirectPaymentsWith(d, keys)
}

// DirectPaymentsWith builds the group over a given keyring (the benchmark's
// KMS adapter on moto).
func DirectPaymentsWith(d *app.Deps, keys *cse.Keyring) (httpapi.Group, error) {
	co, err := checkout.FromDeps(d, connect.Cards(d))
	if err != nil {
		return httpapi.Group{}, err
	}
	pol, err := ledger.PolicyFromEnv(getenv(d))
	if err != nil {
		return httpapi.Group{}, err
	}
	svc := direct.New(direct.Config{Store: d.Store, Checkout: co, Keys: keys, Ledger: pol, Clock: d.Clock, Log: d.Log})
	return svc.Group(), nil
}

package direct

import (
	"context"
	"fmt"

	"github.com/paygate/paygate/shared/platform/connect"

	"github.com/paygate/paygate/shared/domain/cse"
	"github.com/paygate/paygate/shared/domain/cse/localkeys"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// keyring is the card keyring over d's store: d's card keys backend (KMS in
// AWS) when it has one, else key files under the data directory (in memory
// when there is none).
func keyring(d *app.Deps) *cse.Keyring {
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

// BuildDirectPayments builds the DirectPaymentsFunction. Locally it makes
// the first key when there is none (make run's sandbox needs no setup); a
// deployed stack adopts the template's KMS key with the admin CLI.
func BuildDirectPayments(d *app.Deps) (httpapi.Group, error) {
	keys := keyring(d)
	if d.CardKeys == nil {
		if err := keys.EnsureCurrent(context.Background()); err != nil {
			return httpapi.Group{}, fmt.Errorf("direct payment keys: %w", err)
		}
	}
	return BuildDirectPaymentsWith(d, keys)
}

// BuildDirectPaymentsWith builds the group over a given keyring (the
// benchmark's KMS adapter on moto).
func BuildDirectPaymentsWith(d *app.Deps, keys *cse.Keyring) (httpapi.Group, error) {
	co, err := checkout.FromDeps(d, connect.For(d).Cards)
	if err != nil {
		return httpapi.Group{}, err
	}
	pol, err := ledger.PolicyFromEnv(d.Config.Getenv)
	if err != nil {
		return httpapi.Group{}, err
	}
	return New(Config{Store: d.Store, Checkout: co, Keys: keys, Ledger: pol, Clock: d.Clock, Log: d.Log}).Group(), nil
}

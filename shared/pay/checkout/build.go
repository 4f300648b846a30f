package checkout

import (
	"context"
	"fmt"

	"github.com/paygate/paygate/shared/domain/cse"
	"github.com/paygate/paygate/shared/domain/cse/localkeys"

	"github.com/paygate/paygate/shared/platform/connect"

	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// build builds one checkout function group over the connected card
// processor.
func build(d *app.Deps, pick func(*Service) httpapi.Group) (httpapi.Group, error) {
	svc, err := FromDeps(d, connect.For(d))
	if err != nil {
		return httpapi.Group{}, err
	}
	return pick(svc), nil
}

// buildWithCardKeys builds a group that takes cards: it opens the fields the
// Drop-in encrypts with the card keyring.
func buildWithCardKeys(d *app.Deps, pick func(*Service) httpapi.Group) (httpapi.Group, error) {
	svc, err := FromDeps(d, connect.For(d))
	if err != nil {
		return httpapi.Group{}, err
	}
	keys, err := CardKeyring(d)
	if err != nil {
		return httpapi.Group{}, err
	}
	return pick(svc.WithCardKeys(keys)), nil
}

// memoryKeys holds the private halves of the keys made where there is no
// data directory (tools and tests): one for the process, so every function
// built over one store opens what the others' keys sealed.
var memoryKeys = localkeys.New("")

// CardKeyring is the card keyring over d's store, for every function that
// decrypts cards (direct payments, checkout's payments and Drop-in routes,
// the hosted page): d's card keys backend (KMS in AWS: the function's main
// passes app.WithCardKeys(kmsapp.Open)) when it has one, else key files
// under the data directory (in memory when there is none), where it makes
// the first key when there is none (make run's sandbox needs no setup); a
// deployed stack adopts the template's KMS key with the admin CLI.
//
// The ring is read once here (at a Lambda's cold start, outside any
// request), so the first setup of an instance finds it cached.
func CardKeyring(d *app.Deps) (*cse.Keyring, error) {
	ctx := context.Background()
	var keys *cse.Keyring
	if d.CardKeys != nil {
		keys = cse.NewKeyring(d.Store, d.CardKeys, d.Clock)
	} else {
		backend := memoryKeys
		if d.Config.DataDir != "" {
			backend = localkeys.New(localkeys.Dir(d.Config.DataDir))
		}
		keys = cse.NewKeyring(d.Store, backend, d.Clock)
		if err := keys.EnsureCurrent(ctx); err != nil {
			return nil, fmt.Errorf("card keys: %w", err)
		}
	}
	// Best effort: a store that cannot be read now is read on the first
	// request that needs the ring.
	_, _, _ = keys.Current(ctx)
	return keys, nil
}

// BuildCheckoutSessions builds the CheckoutSessionsFunction.
func BuildCheckoutSessions(d *app.Deps) (httpapi.Group, error) {
	return build(d, (*Service).SessionsGroup)
}

// BuildCheckoutPayments builds the CheckoutPaymentsFunction (the advanced
// flow).
func BuildCheckoutPayments(d *app.Deps) (httpapi.Group, error) {
	return buildWithCardKeys(d, (*Service).PaymentsGroup)
}

// BuildCheckoutClient builds the CheckoutClientFunction (the Drop-in's
// client-key endpoints).
func BuildCheckoutClient(d *app.Deps) (httpapi.Group, error) {
	return buildWithCardKeys(d, (*Service).ClientGroup)
}

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

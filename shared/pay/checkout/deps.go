package checkout

import (
	"context"
	"fmt"

	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/pay/checkout/sessiondata"
	"github.com/paygate/paygate/shared/platform/app"
)

// FromDeps builds the service for a function group, authorising cards
// with set's card processors (the wiring chooses them: connect.For). Deployed functions read
// their signing keys from the SecureString parameter named by
// SESSION_SIGNING_SECRET_PARAM at cold start (and every
// sessiondata.RefreshEvery), so no secret sits in their configuration; local
// runs (the embedded store, or the local environment) take
// SESSION_SIGNING_SECRET or the store's generated key.
func FromDeps(d *app.Deps, set connectors.Set) (*Service, error) {
	proc := set.Cards
	ctx := context.Background()
	getenv := d.Config.Getenv
	if getenv == nil { // dependencies built by hand (tests, tools)
		getenv = func(string) string { return "" }
	}
	if name := getenv(sessiondata.ParamEnvVar); name != "" {
		if d.Parameters == nil {
			return nil, fmt.Errorf("%s needs AWS (STORE=dynamodb)", sessiondata.ParamEnvVar)
		}
		signer, err := sessiondata.NewRefreshing(ctx, sessiondata.KeysFrom(d.Parameters.String(name), name), d.Clock)
		if err != nil {
			return nil, fmt.Errorf("session signing keys: %w", err)
		}
		return withLedgerPolicy(New(d.Store, signer, proc).WithConnectors(set.CardConnectors), getenv)
	}
	allowGenerated := d.Config.Store != "dynamodb" || d.Config.Environment == "local"
	keys, err := sessiondata.LoadKeys(ctx, d.Store, getenv, allowGenerated)
	if err != nil {
		return nil, err
	}
	signer, err := sessiondata.NewKeyring(keys)
	if err != nil {
		return nil, err
	}
	return withLedgerPolicy(New(d.Store, signer, proc).WithConnectors(set.CardConnectors), getenv)
}

// withLedgerPolicy makes the payments the service captures (automatic
// capture at authorisation) post to the merchant's books by the same
// policy (settlement delay, fee) as every other capture path.
func withLedgerPolicy(s *Service, getenv func(string) string) (*Service, error) {
	pol, err := ledger.PolicyFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	s.pays = s.pays.WithPolicy(pol)
	return s, nil
}

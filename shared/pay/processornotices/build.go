package processornotices

import (
	"context"

	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/pay/disputes"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// BuildProcessorNotices builds the ProcessorNoticesFunction. A connector's
// HMAC key is read from its record (shared/domain/connectors), sealed by
// the secret box (Deps.Secrets); a function without the secret box knows
// no connector, and every notification to it is a 404 unknown_connector.
func BuildProcessorNotices(d *app.Deps) (httpapi.Group, error) {
	var keys Keys = noConnectors{}
	if d.Secrets != nil {
		keys = recordKeys{connectors.NewRepo(d.Store, d.Secrets, d.Clock)}
	}
	cbs, err := disputes.FromDeps(d)
	if err != nil {
		return httpapi.Group{}, err
	}
	return New(Config{Store: d.Store, Keys: keys, Clock: d.Clock, Log: d.Log, Chargebacks: cbs}).Group(), nil
}

// recordKeys are the connectors' notification keys, from their records.
type recordKeys struct{ r *connectors.Repo }

func (k recordKeys) NotificationKey(ctx context.Context, id string) (string, string, error) {
	c, key, err := k.r.NotificationKey(ctx, id)
	if err != nil {
		return "", "", err
	}
	return c.Account, key, nil
}

// noConnectors is the directory of a function configured with none.
type noConnectors struct{}

func (noConnectors) NotificationKey(_ context.Context, id string) (string, string, error) {
	return "", "", apierr.NotFoundf("no such connector: %s", id)
}

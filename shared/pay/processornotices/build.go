package processornotices

import (
	"context"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/connect"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// BuildProcessorNotices builds the ProcessorNoticesFunction. The connectors
// come from the function's connector directory (connectors.Set's
// CardConnectors) when it can find a connector's notification key (Keys);
// a function without one knows no connector, and every notification to it
// is a 404 unknown_connector.
func BuildProcessorNotices(d *app.Deps) (httpapi.Group, error) {
	keys, ok := connect.For(d).CardConnectors.(Keys)
	if !ok {
		keys = noConnectors{}
	}
	return New(Config{Store: d.Store, Keys: keys, Clock: d.Clock, Log: d.Log}).Group(), nil
}

// noConnectors is the directory of a function configured with none.
type noConnectors struct{}

func (noConnectors) NotificationKey(_ context.Context, id string) (string, string, error) {
	return "", "", apierr.NotFoundf("no such connector: %s", id)
}

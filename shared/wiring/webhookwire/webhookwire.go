// Package webhookwire builds the webhooks area's functions: the endpoints
// API and the events API.
package webhookwire

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/httpapi"
	"github.com/paygate/paygate/shared/webhooks"
)

// WebhookEndpoints builds the WebhookEndpointsFunction.
func WebhookEndpoints(d *app.Deps) (httpapi.Group, error) {
	return webhooks.New(d.Store, d.Clock).EndpointsRoutes(), nil
}

// Events builds the EventsFunction.
func Events(d *app.Deps) (httpapi.Group, error) {
	return webhooks.New(d.Store, d.Clock).EventsRoutes(), nil
}

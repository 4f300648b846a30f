// Package webhookwire builds the webhooks area's functions: the endpoints
// API, the events API and the delivery pipeline's sender.
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
	return webhooks.New(d.Store, d.Clock).WithQueue(d.Queue).EventsRoutes(), nil
}

// WebhookSender builds the WebhookSenderFunction (webhooks queue consumer).
func WebhookSender(d *app.Deps) (app.SQSHandler, error) {
	return webhooks.NewSender(webhooks.New(d.Store, d.Clock), d.Queue, webhooks.SenderConfig{Log: d.Log}).HandleSQS, nil
}

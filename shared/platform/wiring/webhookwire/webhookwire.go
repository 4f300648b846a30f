// Package webhookwire builds the webhooks area's functions: the endpoints
// API, the events API and the delivery pipeline (publisher and sender).
package webhookwire

import (
	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
)

// WebhookEndpoints builds the WebhookEndpointsFunction.
func WebhookEndpoints(d *app.Deps) (httpapi.Group, error) {
	return webhooks.New(d.Store, d.Clock).EndpointsRoutes(), nil
}

// Events builds the EventsFunction.
func Events(d *app.Deps) (httpapi.Group, error) {
	return webhooks.New(d.Store, d.Clock).WithQueue(d.Queue).EventsRoutes(), nil
}

// WebhookPublisher builds the WebhookPublisherFunction (events stream
// consumer).
func WebhookPublisher(d *app.Deps) (store.ChangeHandler, error) {
	return webhooks.NewPublisher(webhooks.New(d.Store, d.Clock), d.Queue, d.Log).Consume, nil
}

// WebhookSender builds the WebhookSenderFunction (webhooks queue consumer).
func WebhookSender(d *app.Deps) (queue.Handler, error) {
	return webhooks.NewSender(webhooks.New(d.Store, d.Clock), d.Queue, webhooks.SenderConfig{Log: d.Log}).Consume, nil
}

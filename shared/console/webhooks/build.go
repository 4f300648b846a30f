package webhooks

import (
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
)

// BuildWebhookEndpoints builds the WebhookEndpointsFunction.
func BuildWebhookEndpoints(d *app.Deps) (httpapi.Group, error) {
	return New(d.Store, d.Clock).WithEnvironment(d.Config.Environment).EndpointsRoutes(), nil
}

// BuildEvents builds the EventsFunction.
func BuildEvents(d *app.Deps) (httpapi.Group, error) {
	return New(d.Store, d.Clock).WithEnvironment(d.Config.Environment).WithQueue(d.Queue).EventsRoutes(), nil
}

// BuildWebhookPublisher builds the WebhookPublisherFunction (events stream
// consumer).
func BuildWebhookPublisher(d *app.Deps) (store.ChangeHandler, error) {
	return NewPublisher(New(d.Store, d.Clock).WithEnvironment(d.Config.Environment), d.Queue, d.Log).Consume, nil
}

// BuildWebhookSender builds the WebhookSenderFunction (webhooks queue
// consumer).
func BuildWebhookSender(d *app.Deps) (queue.Handler, error) {
	return NewSender(New(d.Store, d.Clock).WithEnvironment(d.Config.Environment), d.Queue, SenderConfig{Log: d.Log}).Consume, nil
}

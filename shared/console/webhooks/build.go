package webhooks

import (
	"fmt"

	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
)

// BuildWebhookEndpoints builds the WebhookEndpointsFunction.
func BuildWebhookEndpoints(d *app.Deps) (httpapi.Group, error) {
	svc, err := FromDeps(d)
	if err != nil {
		return httpapi.Group{}, err
	}
	return svc.EndpointsRoutes(), nil
}

// FromDeps is the service over d sealing and opening the signing secrets
// with d.Secrets, for the functions that write or sign with them (the
// endpoints API, the sender, the dashboard); a deployed one gets the box from
// its main (app.WithSecretBox(kmsapp.OpenSecretBox)), or does not start.
func FromDeps(d *app.Deps) (*Service, error) {
	if d.Secrets == nil {
		return nil, fmt.Errorf("webhooks: no secret box for the signing secrets: the function's main passes app.WithSecretBox(kmsapp.OpenSecretBox)")
	}
	return New(d.Store, d.Clock).WithEnvironment(d.Config.Environment).WithSecrets(d.Secrets).WithQueue(d.Queue), nil
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
	svc, err := FromDeps(d)
	if err != nil {
		return nil, err
	}
	return NewSender(svc, d.Queue, SenderConfig{Log: d.Log}).Consume, nil
}

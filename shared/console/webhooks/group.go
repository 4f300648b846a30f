package webhooks

import (
	"time"

	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
)

// EndpointsGroup is the WebhookEndpointsFunction: merchants' webhook
// endpoints.
var EndpointsGroup = registry.Group{
	Function: "WebhookEndpointsFunction", Dir: "webhook-endpoints", OpenAPI: "paths-webhooks.json",
	Routes: []registry.Route{
		{Method: "POST", Path: "/v1/webhook-endpoints", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
		{Method: "GET", Path: "/v1/webhook-endpoints", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/v1/webhook-endpoints/{id}", Auth: httpapi.AuthSecret},
		{Method: "POST", Path: "/v1/webhook-endpoints/{id}", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemOptional},
		{Method: "DELETE", Path: "/v1/webhook-endpoints/{id}", Auth: httpapi.AuthSecret},
		{Method: "POST", Path: "/v1/webhook-endpoints/{id}/roll-secret", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional},
		{Method: "GET", Path: "/v1/webhook-endpoints/{id}/deliveries", Auth: httpapi.AuthSecret},
	},
	Tables: []registry.Table{
		// Authenticating the key is a GetItem; endpoints are read by GetItem
		// and Query (one partition per account), written by UpdateItem (a
		// put, and the count's increment, in one TransactWriteItems) and
		// removed by a Delete in the delete's transaction.
		{Name: store.TableAccounts, Actions: []string{"DeleteItem", "GetItem", "Query", "UpdateItem"}},
		// Idempotency-Key on create and roll-secret: read, then recorded in
		// the write's own transaction; on update: a claim, completed or
		// released (DeleteItem) around the change.
		{Name: store.TableIdempotency, Actions: []string{"GetItem", "UpdateItem", "DeleteItem"}},
	},
}

// EventsGroup is the EventsFunction: the event log, and resending an event
// (a new delivery on the webhooks queue).
var EventsGroup = registry.Group{
	Function: "EventsFunction", Dir: "events", OpenAPI: "paths-webhooks.json",
	Routes: []registry.Route{
		{Method: "GET", Path: "/v1/events", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/v1/events/{id}", Auth: httpapi.AuthSecret},
		// A resend sends to the queue, outside the store: a claimed key.
		{Method: "POST", Path: "/v1/events/{id}/resend", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemOptional},
	},
	Tables: []registry.Table{
		// The key, and a resend's endpoints (GetItem, or the Query of the
		// account's endpoints).
		{Name: store.TableAccounts, Actions: []string{"GetItem", "Query"}},
		{Name: store.TableEvents, Actions: []string{"GetItem", "Query"}},
		{Name: store.TableIdempotency, Actions: []string{"GetItem", "UpdateItem", "DeleteItem"}},
	},
	Queues: []registry.Queue{{Name: queue.Webhooks, Access: registry.Send}},
}

// PublisherGroup is the WebhookPublisherFunction: the events table stream's
// consumer, which queues one delivery per (event, subscribed endpoint).
var PublisherGroup = registry.Group{
	Function: "WebhookPublisherFunction", Dir: "webhook-publisher", Streams: store.TableEvents,
	Timeout: 30 * time.Second,
	Tables: []registry.Table{
		// The account's endpoints: one Query per event.
		{Name: store.TableAccounts, Actions: []string{"Query"}},
	},
	Queues: []registry.Queue{{Name: queue.Webhooks, Access: registry.Send}},
}

// SenderGroup is the WebhookSenderFunction: the webhooks queue's consumer,
// which makes each delivery attempt, queues the next (SQS delays of at most
// 15 minutes, hopped for longer waits) and dead-letters a delivery it gives
// up on.
var SenderGroup = registry.Group{
	Function: "WebhookSenderFunction", Dir: "webhook-sender", Consumes: queue.Webhooks,
	// A batch's attempts run at once, each within the 10 s delivery timeout.
	Timeout: 60 * time.Second,
	Tables: []registry.Table{
		// Endpoint, account (default version), delivery state: GetItem; the
		// attempt and the state in one TransactWriteItems, and the
		// endpoint's health: UpdateItem.
		{Name: store.TableAccounts, Actions: []string{"GetItem", "UpdateItem"}},
		{Name: store.TableEvents, Actions: []string{"GetItem"}},
	},
	Queues: []registry.Queue{
		{Name: queue.Webhooks, Access: registry.Poll},
		{Name: queue.Webhooks, Access: registry.Send},
		{Name: queue.DLQName(queue.Webhooks), Access: registry.Send},
	},
}

// Area is webhooks: endpoints and the events API. The event log's prefix
// (evt#) is the platform's (every area appends to it); this area reads it.
var Area = registry.Area{
	Name:   "webhooks",
	Groups: []registry.Group{EndpointsGroup, EventsGroup, PublisherGroup, SenderGroup},
	Keys: []registry.Key{
		{Table: store.TableAccounts, Prefix: endpointPK(""), What: "webhook endpoints (with their signing secrets)"},
		{Table: store.TableAccounts, Prefix: countPK(""), What: "each account's webhook endpoint count"},
		{Table: store.TableAccounts, Prefix: deliveryPK(""), What: "webhook delivery states"},
		{Table: store.TableAccounts, Prefix: "whatt#", What: "webhook delivery attempts, per endpoint"},
	},
}

// Package webhooks is the merchant side of webhooks: endpoints (where to
// deliver, which event types, the signing secret) and the events API over the
// event log. The delivery pipeline (events stream -> publisher -> webhooks
// queue -> sender) builds on it: Endpoint.Subscribed picks the endpoints of
// an event, Endpoint.SigningSecrets gives the secrets to sign with (package
// signature), and package outbound is the client a sender must use.
//
// Delivery guarantees (delivery.go, sender.go; docs/webhooks.md): every
// event reaches each endpoint subscribed to it once. The sender's record of
// each (event, endpoint) it delivered is the delivery state, whose id the
// publisher derives from (event, endpoint); the sender claims each attempt
// in it with a conditional put before the POST. A stream replay, a new event
// source mapping starting at TRIM_HORIZON, a republished batch or a copy of a
// message finds the delivery made or being made and sends nothing; only a
// sender that crashed between its POST and its record repeats an attempt,
// once its claim lapses (SendLease). A merchant's resend is a new delivery
// and sends.
//
// Functions: WebhookEndpointsFunction (/v1/webhook-endpoints...) and
// EventsFunction (/v1/events...), two groups because the stack projection
// (docs/architecture.md, Stack size) already counts them apart and the events function
// then needs no write permission at all.
//
// Key layout (accounts table, beside the account; events table as written by
// orders and payments):
//
//	accounts  whep#<account>       / we_<uuidv7 hex>  an endpoint, secrets included
//	accounts  whepcount#<account>  / n                N = endpoints held (<= MaxEndpoints)
//	events    evt#<account>        / evt_<uuidv7 hex> an event record (read only here)
//
// DynamoDB calls per request (after the key's GetItem): create 1
// TransactWriteItems (endpoint put-if-absent, count +1 bounded at 16 by the
// store, and the Idempotency-Key record when sent) plus the key's GetItem;
// get 1 GetItem; list 1 Query per 100 read; update and roll-secret 1 GetItem
// and 1 conditional write (version check); delete 1 GetItem and 1
// TransactWriteItems (delete at version, count -1 kept >= 0); events list 1
// Query per page of records read (filters apply while paging, within
// listing.DefaultBudget), event get 1 GetItem.
//
// Secrets: whsec_ and 64 hex digits (256 random bits), shown in the answer of
// create and roll-secret only (and in a replay of the same Idempotency-Key,
// which the idempotency record keeps 24 h), never logged. They are stored as
// they are in the endpoint record, which DynamoDB encrypts at rest, because
// the sender must sign with them; an envelope key (the SSM secret checkout
// uses) can wrap them when the pipeline settles how the sender gets keys.
//
// Errors: services return apierr kinds (Invalid with codes url_invalid,
// event_type_unknown, webhook_endpoint_limit; NotFound for a missing,
// malformed or another account's id; Conflict; IdempotencyMismatch;
// Unavailable; Internal), never HTTP statuses.
package webhooks

// Command webhook-publisher is the WebhookPublisherFunction Lambda: it
// consumes the events table's stream and queues each event's deliveries.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/app/sqsapp"
	"github.com/paygate/paygate/shared/wiring/webhookwire"
)

func main() { app.StartStream(webhookwire.WebhookPublisher, app.WithQueue(sqsapp.Open)) }

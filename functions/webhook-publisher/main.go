// Command webhook-publisher is the WebhookPublisherFunction Lambda: it
// consumes the events table's stream and queues each event's deliveries.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/webhookwire"
)

func main() { app.StartStream(webhookwire.WebhookPublisher, awsapp.Open, app.WithQueue(sqsapp.Open)) }

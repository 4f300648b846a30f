// Command webhook-publisher is the WebhookPublisherFunction Lambda: it
// consumes the events table's stream and queues each event's deliveries.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartStream(webhooks.BuildWebhookPublisher, awsapp.Open, app.WithQueue(sqsapp.Open)) }

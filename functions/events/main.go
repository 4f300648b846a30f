// Command events is the EventsFunction Lambda: the events API, and resending
// an event (a delivery on the webhooks queue).
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/webhookwire"
)

func main() { app.StartHTTP(webhookwire.Events, awsapp.Open, app.WithQueue(sqsapp.Open)) }

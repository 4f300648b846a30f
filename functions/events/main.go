// Command events is the EventsFunction Lambda: the events API, and resending
// an event (a delivery on the webhooks queue).
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartHTTP(webhooks.BuildEvents, awsapp.Open, app.WithQueue(sqsapp.Open)) }

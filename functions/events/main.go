// Command events is the EventsFunction Lambda: the events API, and resending
// an event (a delivery on the webhooks queue).
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/app/sqsapp"
	"github.com/paygate/paygate/shared/wiring/webhookwire"
)

func main() { app.StartHTTP(webhookwire.Events, app.WithQueue(sqsapp.Open)) }

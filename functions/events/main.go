// Command events is the EventsFunction Lambda: the events API (read only).
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/wiring/webhookwire"
)

func main() { app.StartHTTP(webhookwire.Events) }

// Command webhook-endpoints is the WebhookEndpointsFunction Lambda: merchants' webhook endpoints.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/wiring/webhookwire"
)

func main() { app.StartHTTP(webhookwire.WebhookEndpoints) }

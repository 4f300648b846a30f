// Command webhook-endpoints is the WebhookEndpointsFunction Lambda: merchants' webhook endpoints.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/webhookwire"
)

func main() { app.StartHTTP(webhookwire.WebhookEndpoints, awsapp.Open) }

// Command webhook-endpoints is the WebhookEndpointsFunction Lambda: merchants' webhook endpoints.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/kmsapp"
	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() {
	app.StartHTTP(webhooks.BuildWebhookEndpoints, awsapp.Open, app.WithSecretBox(kmsapp.OpenSecretBox))
}

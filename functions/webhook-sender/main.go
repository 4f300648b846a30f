// Command webhook-sender is the WebhookSenderFunction Lambda: it consumes the
// webhooks queue and makes each delivery attempt.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/kmsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() {
	app.StartSQS(webhooks.BuildWebhookSender, awsapp.Open, app.WithQueue(sqsapp.Open), app.WithSecretBox(kmsapp.OpenSecretBox))
}

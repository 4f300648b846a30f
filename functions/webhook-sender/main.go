// Command webhook-sender is the WebhookSenderFunction Lambda: it consumes the
// webhooks queue and makes each delivery attempt.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/webhookwire"
)

func main() { app.StartSQS(webhookwire.WebhookSender, awsapp.Open, app.WithQueue(sqsapp.Open)) }

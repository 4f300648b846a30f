// Command webhook-sender is the WebhookSenderFunction Lambda: it consumes the
// webhooks queue and makes each delivery attempt.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/app/sqsapp"
	"github.com/paygate/paygate/shared/wiring/webhookwire"
)

func main() { app.StartSQS(webhookwire.WebhookSender, app.WithQueue(sqsapp.Open)) }

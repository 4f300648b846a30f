// Command payment-link-expirer is the PaymentLinkExpirerFunction, run every
// minute by an EventBridge schedule: it stores the expiry of active payment
// links past expires_at, with their payment_link.expired events.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/pay/links"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartScheduled(links.BuildPaymentLinkExpirer, awsapp.Open) }

// Command checkout-session-expirer is the CheckoutSessionExpirerFunction, run
// every minute by an EventBridge schedule: it stores the expiry of checkout
// sessions past expiresAt and writes their checkout.session.expired events.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartScheduled(checkout.BuildCheckoutSessionExpirer, awsapp.Open) }

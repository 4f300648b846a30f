// Command checkout-session-expirer is the CheckoutSessionExpirerFunction, run
// every minute by an EventBridge schedule: it stores the expiry of checkout
// sessions past expiresAt and writes their checkout.session.expired events.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/wiring/checkoutwire"
)

func main() { app.StartScheduled(checkoutwire.CheckoutSessionExpirer) }

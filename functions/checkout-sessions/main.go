// Command checkout-sessions is the CheckoutSessionsFunction: sessions and their results.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/wiring/checkoutwire"
)

func main() { app.StartHTTP(checkoutwire.CheckoutSessions) }

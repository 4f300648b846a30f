// Command checkout-testhelpers is the CheckoutTestHelpersFunction: sandbox 3-D Secure helpers.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/wiring/checkoutwire"
)

func main() { app.StartHTTP(checkoutwire.CheckoutTestHelpers) }

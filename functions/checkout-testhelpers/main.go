// Command checkout-testhelpers is the CheckoutTestHelpersFunction: sandbox 3-D Secure helpers.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/checkoutwire"
)

func main() { app.StartHTTP(checkoutwire.CheckoutTestHelpers, awsapp.Open) }

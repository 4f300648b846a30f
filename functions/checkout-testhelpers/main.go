// Command checkout-testhelpers is the CheckoutTestHelpersFunction: sandbox 3-D Secure helpers.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartHTTP(checkout.BuildCheckoutTestHelpers, awsapp.Open) }

// Command checkout-payments is the CheckoutPaymentsFunction: the advanced flow.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/kmsapp"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() {
	app.StartHTTP(checkout.BuildCheckoutPayments, awsapp.Open, app.WithCardKeys(kmsapp.Open), app.WithSecretBox(kmsapp.OpenSecretBox))
}

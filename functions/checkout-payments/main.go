// Command checkout-payments is the CheckoutPaymentsFunction: the advanced flow.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/checkoutwire"
)

func main() { app.StartHTTP(checkoutwire.CheckoutPayments, awsapp.Open) }

// Command checkout-sessions is the CheckoutSessionsFunction: sessions and their results.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartHTTP(checkout.BuildCheckoutSessions, awsapp.Open) }

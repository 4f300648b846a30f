// Command checkout-modifications is the CheckoutModificationsFunction Lambda:
// Adyen Checkout v71's captures, refunds, cancels, reversals and amount
// updates of a payment, over the transactions services.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/paywire"
)

func main() { app.StartHTTP(paywire.CheckoutModifications, awsapp.Open) }

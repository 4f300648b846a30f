// Command checkout-modifications is the CheckoutModificationsFunction Lambda:
// Adyen Checkout v71's captures, refunds, cancels, reversals and amount
// updates of a payment, over the transactions services.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/wiring/paywire"
)

func main() { app.StartHTTP(paywire.CheckoutModifications) }

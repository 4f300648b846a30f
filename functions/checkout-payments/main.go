// Command checkout-payments is the CheckoutPaymentsFunction: the advanced flow.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/wiring/checkoutwire"
)

func main() { app.StartHTTP(checkoutwire.CheckoutPayments) }

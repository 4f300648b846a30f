// Command checkout-modifications is the CheckoutModificationsFunction Lambda:
// Adyen Checkout v71's captures, refunds, cancels, reversals and amount
// updates of a payment, over the transactions services.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/kmsapp"
	"github.com/paygate/paygate/shared/pay/transactions"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() {
	app.StartHTTP(transactions.BuildCheckoutModifications, awsapp.Open, app.WithSecretBox(kmsapp.OpenSecretBox))
}

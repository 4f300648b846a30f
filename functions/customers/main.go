// Command customers is the CustomersFunction Lambda: Pay API customers,
// their card tokens and transactions, and recurring payments of a card
// token.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/kmsapp"
	"github.com/paygate/paygate/shared/pay/customers"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() {
	app.StartHTTP(customers.BuildCustomers, awsapp.Open, app.WithSecretBox(kmsapp.OpenSecretBox))
}

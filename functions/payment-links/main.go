// Command payment-links is the PaymentLinksFunction Lambda: create, list,
// read, cancel payment links, update their expiry, and their statistics.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/pay/links"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartHTTP(links.BuildPaymentLinks, awsapp.Open) }

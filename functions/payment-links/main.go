// Command payment-links is the PaymentLinksFunction Lambda: create, list,
// read, cancel payment links, update their expiry, and their statistics.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/linkwire"
)

func main() { app.StartHTTP(linkwire.PaymentLinks, awsapp.Open) }

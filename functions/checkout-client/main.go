// Command checkout-client is the CheckoutClientFunction: the drop-in's client-key endpoints.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/checkoutwire"
)

func main() { app.StartHTTP(checkoutwire.CheckoutClient, awsapp.Open) }

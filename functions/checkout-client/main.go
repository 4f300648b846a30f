// Command checkout-client is the CheckoutClientFunction: the drop-in's client-key endpoints.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/wiring/checkoutwire"
)

func main() { app.StartHTTP(checkoutwire.CheckoutClient) }

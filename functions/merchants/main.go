// Command merchants is the MerchantsFunction Lambda: merchant details.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/wiring/platformwire"
)

func main() { app.StartHTTP(platformwire.Merchants) }

// Command merchants is the MerchantsFunction Lambda: merchant details.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/wiring"
)

func main() { app.StartHTTP(wiring.Merchants) }

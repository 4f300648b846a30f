// Command merchants is the MerchantsFunction Lambda: merchant details.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/platformwire"
)

func main() { app.StartHTTP(platformwire.Merchants, awsapp.Open) }

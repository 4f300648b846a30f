// Command merchants is the MerchantsFunction Lambda: merchant details.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/console/merchants"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartHTTP(merchants.BuildMerchants, awsapp.Open) }

// Command split-requests is the SplitRequestsFunction Lambda: split
// requests, which divide a payment's captures between the merchant and its
// partners.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/pay/splits"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartHTTP(splits.BuildSplitRequests, awsapp.Open) }

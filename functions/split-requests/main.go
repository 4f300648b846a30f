// Command split-requests is the SplitRequestsFunction Lambda: split
// requests, which divide a payment's captures between the merchant and its
// partners.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/paywire"
)

func main() { app.StartHTTP(paywire.SplitRequests, awsapp.Open) }

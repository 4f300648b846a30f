// Command transactions is the TransactionsFunction Lambda: read and list Pay
// API transactions, capture, cancel and refund them.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/paywire"
)

func main() { app.StartHTTP(paywire.Transactions, awsapp.Open) }

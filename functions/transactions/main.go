// Command transactions is the TransactionsFunction Lambda: read and list Pay
// API transactions, capture, cancel and refund them.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/kmsapp"
	"github.com/paygate/paygate/shared/pay/transactions"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() {
	app.StartHTTP(transactions.BuildTransactions, awsapp.Open, app.WithSecretBox(kmsapp.OpenSecretBox))
}

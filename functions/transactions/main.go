// Command transactions is the TransactionsFunction Lambda: read and list Pay
// API transactions, capture, cancel and refund them.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/wiring/paywire"
)

func main() { app.StartHTTP(paywire.Transactions) }

// Command balance is the MerchantBalanceFunction Lambda: the merchant's
// balance and ledger entries, payout cards and payouts.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/balancewire"
)

func main() { app.StartHTTP(balancewire.MerchantBalance, awsapp.Open, app.WithQueue(sqsapp.Open)) }

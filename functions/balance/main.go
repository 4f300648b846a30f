// Command balance is the MerchantBalanceFunction Lambda: the merchant's
// balance and ledger entries, payout cards and payouts.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/pay/balance"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartHTTP(balance.BuildMerchantBalance, awsapp.Open, app.WithQueue(sqsapp.Open)) }

// Command balance is the MerchantBalanceFunction Lambda: the merchant's
// balance and ledger entries, payout cards and payouts.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/app/sqsapp"
	"github.com/paygate/paygate/shared/wiring/balancewire"
)

func main() { app.StartHTTP(balancewire.MerchantBalance, app.WithQueue(sqsapp.Open)) }

// Command payouts-sender is the PayoutsSenderFunction Lambda: it consumes
// the payouts queue, pays each payout through the payout processor and
// records its answer.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/pay/balance"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartSQS(balance.BuildPayoutsSender, awsapp.Open, app.WithQueue(sqsapp.Open)) }

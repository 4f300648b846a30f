// Command payouts-sender is the PayoutsSenderFunction Lambda: it consumes
// the payouts queue, pays each payout through the payout processor and
// records its answer.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/app/sqsapp"
	"github.com/paygate/paygate/shared/wiring/balancewire"
)

func main() { app.StartSQS(balancewire.PayoutsSender, app.WithQueue(sqsapp.Open)) }

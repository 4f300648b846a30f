// Command gate-balance is the GateBalanceFunction Lambda: Gate balances and deposits.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartHTTP(prepaid.BuildGateBalance, awsapp.Open) }

// Command gate-balance is the GateBalanceFunction Lambda: Gate balances and deposits.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/gatewire"
)

func main() { app.StartHTTP(gatewire.GateBalance, awsapp.Open) }

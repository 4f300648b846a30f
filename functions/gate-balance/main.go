// Command gate-balance is the GateBalanceFunction Lambda: Gate balances and deposits.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/wiring/gatewire"
)

func main() { app.StartHTTP(gatewire.GateBalance) }

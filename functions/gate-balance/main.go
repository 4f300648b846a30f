// Command gate-balance is the GateBalanceFunction Lambda: Gate balances and deposits.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/wiring"
)

func main() { app.StartHTTP(wiring.GateBalance) }

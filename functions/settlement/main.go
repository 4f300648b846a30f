// Command settlement is the SettlementFunction, run every minute by an
// EventBridge schedule: it makes available the captured funds whose
// settlement delay passed, and re-queues payouts whose message was lost.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/app/sqsapp"
	"github.com/paygate/paygate/shared/wiring/balancewire"
)

func main() { app.StartScheduled(balancewire.Settlement, app.WithQueue(sqsapp.Open)) }

// Command settlement is the SettlementFunction, run every minute by an
// EventBridge schedule: it makes available the captured funds whose
// settlement delay passed, and re-queues payouts whose message was lost.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/balancewire"
)

func main() { app.StartScheduled(balancewire.Settlement, awsapp.Open, app.WithQueue(sqsapp.Open)) }

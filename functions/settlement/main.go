// Command settlement is the SettlementFunction, run every minute by an
// EventBridge schedule: it makes available the captured funds whose
// settlement delay passed, and re-queues payouts whose message was lost.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/pay/beneficiaries"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() {
	app.StartScheduled(beneficiaries.BuildSettlement, awsapp.Open, app.WithQueue(sqsapp.Open))
}

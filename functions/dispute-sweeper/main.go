// Command dispute-sweeper is the DisputeSweeperFunction, run every minute
// by an EventBridge schedule: it closes the disputes not answered by their
// due date (lost), applies the sandbox issuer's decision to those whose
// review ended, and repays negative balances from available.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/pay/disputes"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartScheduled(disputes.BuildDisputeSweeper, awsapp.Open) }

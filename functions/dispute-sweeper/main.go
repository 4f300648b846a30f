// Command dispute-sweeper is the DisputeSweeperFunction, run every minute
// by an EventBridge schedule: it closes the disputes not answered by their
// due date (lost), applies the sandbox issuer's decision to those whose
// review ended, and repays negative balances from available.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/disputewire"
)

func main() { app.StartScheduled(disputewire.DisputeSweeper, awsapp.Open) }

// Command disputes is the DisputesFunction Lambda: disputes of card
// payments (read, list, accept, evidence, submit) and the sandbox's helper
// that opens one.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/pay/disputes"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartHTTP(disputes.BuildDisputes, awsapp.Open) }

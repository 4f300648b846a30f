// Command checkout-sessions is the CheckoutSessionsFunction: sessions and their results.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/checkoutwire"
)

func main() { app.StartHTTP(checkoutwire.CheckoutSessions, awsapp.Open) }

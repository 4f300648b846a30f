// Command direct-payments is the DirectPaymentsFunction Lambda: the public
// keys merchants encrypt card fields with, and host-to-host payments of an
// encrypted card or a decoded wallet token.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/kmsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/directwire"
)

func main() { app.StartHTTP(directwire.DirectPayments, awsapp.Open, app.WithCardKeys(kmsapp.Open)) }

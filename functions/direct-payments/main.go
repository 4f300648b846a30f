// Command direct-payments is the DirectPaymentsFunction Lambda: the public
// keys merchants encrypt card fields with, and host-to-host payments of an
// encrypted card or a decoded wallet token.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/kmsapp"
	"github.com/paygate/paygate/shared/pay/direct"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() {
	app.StartHTTP(direct.BuildDirectPayments, awsapp.Open, app.WithCardKeys(kmsapp.Open), app.WithSecretBox(kmsapp.OpenSecretBox))
}

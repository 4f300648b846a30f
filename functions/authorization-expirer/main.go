// Command authorization-expirer is the AuthorizationExpirerFunction, run
// every five minutes by an EventBridge schedule: it voids authorisations not
// captured within seven days, releasing the hold.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/kmsapp"
	"github.com/paygate/paygate/shared/pay/transactions"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() {
	app.StartScheduled(transactions.BuildAuthorizationExpirer, awsapp.Open, app.WithSecretBox(kmsapp.OpenSecretBox))
}

// Command dashboard is the DashboardFunction Lambda: the merchant
// dashboard's pages and forms under /dashboard.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/kmsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/console/dashboard"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() {
	app.StartHTTP(dashboard.BuildDashboard, awsapp.Open, app.WithQueue(sqsapp.Open), app.WithSecretBox(kmsapp.OpenSecretBox))
}

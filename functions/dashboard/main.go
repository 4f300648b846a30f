// Command dashboard is the DashboardFunction Lambda: the merchant
// dashboard's pages and forms under /dashboard.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/dashwire"
)

func main() { app.StartHTTP(dashwire.Dashboard, awsapp.Open, app.WithQueue(sqsapp.Open)) }

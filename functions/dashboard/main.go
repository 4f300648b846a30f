// Command dashboard is the DashboardFunction Lambda: the merchant
// dashboard's pages and forms under /dashboard.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/app/sqsapp"
	"github.com/paygate/paygate/shared/wiring/dashwire"
)

func main() { app.StartHTTP(dashwire.Dashboard, app.WithQueue(sqsapp.Open)) }

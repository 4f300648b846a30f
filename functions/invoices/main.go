// Command invoices is the InvoicesFunction Lambda: bank invoices, and the
// sandbox payer's bank that pays them (a test helper).
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/pay/invoices"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartHTTP(invoices.BuildInvoices, awsapp.Open) }

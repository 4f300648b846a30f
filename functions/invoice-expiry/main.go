// Command invoice-expiry is the InvoiceExpiryFunction, run every minute by an
// EventBridge schedule: it marks the invoices whose expires_at passed unpaid
// expired, each with its invoice.expired event.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/pay/invoices"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartScheduled(invoices.BuildInvoiceExpiry, awsapp.Open) }

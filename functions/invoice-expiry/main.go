// Command invoice-expiry is the InvoiceExpiryFunction, run every minute by an
// EventBridge schedule: it marks the invoices whose expires_at passed unpaid
// expired, each with its invoice.expired event.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/invoicewire"
)

func main() { app.StartScheduled(invoicewire.InvoiceExpiry, awsapp.Open) }

// Command invoices is the InvoicesFunction Lambda: bank invoices, and the
// sandbox payer's bank that pays them (a test helper).
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/wiring/invoicewire"
)

func main() { app.StartHTTP(invoicewire.Invoices) }

// Command payment-orders-sender is the PaymentOrdersSenderFunction Lambda: it
// consumes the payment orders queue, sends each order to the bank and
// records its answer.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/beneficiarywire"
)

func main() {
	app.StartSQS(beneficiarywire.PaymentOrdersSender, awsapp.Open, app.WithQueue(sqsapp.Open))
}

// Command payment-orders-sender is the PaymentOrdersSenderFunction Lambda: it
// consumes the payment orders queue, sends each order to the bank and
// records its answer.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/pay/beneficiaries"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() {
	app.StartSQS(beneficiaries.BuildPaymentOrdersSender, awsapp.Open, app.WithQueue(sqsapp.Open))
}

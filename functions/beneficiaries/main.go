// Command beneficiaries is the BeneficiariesFunction Lambda: the merchant's
// beneficiaries and their transfers, settlement payment orders and
// distributions.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/pay/beneficiaries"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartHTTP(beneficiaries.BuildBeneficiaries, awsapp.Open, app.WithQueue(sqsapp.Open)) }

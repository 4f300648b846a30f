// Command beneficiaries is the BeneficiariesFunction Lambda: the merchant's
// beneficiaries and their transfers, settlement payment orders and
// distributions.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/app/sqsapp"
	"github.com/paygate/paygate/shared/wiring/beneficiarywire"
)

func main() { app.StartHTTP(beneficiarywire.Beneficiaries, app.WithQueue(sqsapp.Open)) }

// Package beneficiarywire builds the beneficiaries' functions: the
// beneficiaries, payment order and distribution routes, and the payment
// orders consumer (the settlement task's part is balancewire's).
package beneficiarywire

import (
	"github.com/paygate/paygate/shared/pay/beneficiaries"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/wiring/connect"
	"github.com/paygate/paygate/shared/queue"
)

// Service builds the beneficiaries service over d (the sandbox bank).
func Service(d *app.Deps) *beneficiaries.Service {
	return beneficiaries.New(beneficiaries.Config{Store: d.Store, Queue: d.Queue, Clock: d.Clock, Log: d.Log, Bank: connect.Bank(d)})
}

// Beneficiaries builds the BeneficiariesFunction.
func Beneficiaries(d *app.Deps) (httpapi.Group, error) { return Service(d).Group(), nil }

// PaymentOrdersSender builds the PaymentOrdersSenderFunction (queue consumer).
func PaymentOrdersSender(d *app.Deps) (queue.Handler, error) { return Service(d).Consume, nil }

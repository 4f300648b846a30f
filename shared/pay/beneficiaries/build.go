package beneficiaries

import (
	"context"

	"github.com/paygate/paygate/shared/platform/connect"

	"github.com/paygate/paygate/shared/pay/balance"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
)

// FromDeps is the beneficiaries service over d and its connected bank (the
// settlement task's sweep and the dashboard build it too).
func FromDeps(d *app.Deps) *Service {
	return New(Config{Store: d.Store, Queue: d.Queue, Clock: d.Clock, Log: d.Log, Bank: connect.For(d).Bank})
}

// BuildBeneficiaries builds the BeneficiariesFunction.
func BuildBeneficiaries(d *app.Deps) (httpapi.Group, error) { return FromDeps(d).Group(), nil }

// BuildPaymentOrdersSender builds the PaymentOrdersSenderFunction (queue
// consumer).
func BuildPaymentOrdersSender(d *app.Deps) (queue.Handler, error) { return FromDeps(d).Consume, nil }

// BuildSettlement builds the SettlementFunction's task (declared by
// balance.SettlementGroup): the captures due for settlement and the payouts
// to re-queue (balance), then the payment orders to re-queue and the
// distributions to finish (this area's Sweep). It is built here because
// this area extends balance's settlement: balance imports no beneficiaries.
func BuildSettlement(d *app.Deps) (func(context.Context) error, error) {
	bal, svc := balance.FromDeps(d), FromDeps(d)
	return func(ctx context.Context) error {
		_, _, err := bal.Settle(ctx)
		if _, berr := svc.Sweep(ctx); err == nil {
			err = berr
		}
		return err
	}, nil
}

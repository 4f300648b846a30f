// Package balancewire builds the merchant balance's functions: the balance,
// entries, payout card and payout routes, the payouts consumer and the
// settlement task (which also sweeps the beneficiaries' payment orders and
// distributions).
package balancewire

import (
	"context"

	"github.com/paygate/paygate/shared/platform/wiring/connect"

	"github.com/paygate/paygate/shared/pay/balance"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/wiring/beneficiarywire"
	"github.com/paygate/paygate/shared/queue"
)

func service(d *app.Deps) *balance.Service {
	return balance.New(balance.Config{Store: d.Store, Queue: d.Queue, Clock: d.Clock, Log: d.Log, Processor: connect.Payouts(d)})
}

// MerchantBalance builds the MerchantBalanceFunction.
func MerchantBalance(d *app.Deps) (httpapi.Group, error) { return service(d).Group(), nil }

// PayoutsSender builds the PayoutsSenderFunction (queue consumer).
func PayoutsSender(d *app.Deps) (queue.Handler, error) { return service(d).Consume, nil }

// Settlement builds the SettlementFunction's task: the captures due for
// settlement and the payouts to re-queue (shared/pay/balance), then the payment
// orders to re-queue and the distributions to finish (shared/pay/beneficiaries).
func Settlement(d *app.Deps) (func(context.Context) error, error) {
	svc, ben := service(d), beneficiarywire.Service(d)
	return func(ctx context.Context) error {
		_, _, err := svc.Settle(ctx)
		if _, berr := ben.Sweep(ctx); err == nil {
			err = berr
		}
		return err
	}, nil
}

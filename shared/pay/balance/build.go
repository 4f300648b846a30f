package balance

import (
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/connect"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
)

// FromDeps is the balance service over d and its connected payout
// processor.
func FromDeps(d *app.Deps) *Service {
	return New(Config{Store: d.Store, Queue: d.Queue, Clock: d.Clock, Log: d.Log, Processor: connect.For(d).Payouts})
}

// BuildMerchantBalance builds the MerchantBalanceFunction.
func BuildMerchantBalance(d *app.Deps) (httpapi.Group, error) { return FromDeps(d).Group(), nil }

// BuildPayoutsSender builds the PayoutsSenderFunction (queue consumer).
func BuildPayoutsSender(d *app.Deps) (queue.Handler, error) { return FromDeps(d).Consume, nil }

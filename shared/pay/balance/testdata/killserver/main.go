// Command killserver is the payouts crash test's server
// (remittancetest.Server): checkout payments (a card captured at
// authorisation funds the balance), the transactions routes, the balance
// and payout routes and the payouts consumer, as make run serves them.
// With CRASH_AFTER_PAY=1 the process sends itself SIGKILL right after the
// sandbox payout processor answered (its own record written), before the
// consumer records the answer: the crash the test is about. Each processor
// call appends a line to $DATA_DIR/processor-calls, so the test can count
// them across processes.
package main

import (
	"github.com/paygate/paygate/shared/pay/balance"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/pay/transactions"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/sandbox/payoutprocessor"
	"github.com/paygate/paygate/shared/testkit/apitest/crashtest"
	"github.com/paygate/paygate/shared/testkit/remittancetest"
)

func main() {
	remittancetest.Server{Queue: queue.Payouts, Calls: "processor-calls", Crash: "CRASH_AFTER_PAY",
		Build: func(d *app.Deps, outside crashtest.Outside) (queue.Handler, []httpapi.Group, error) {
			sbx := payoutprocessor.New(d.Store, nil)
			proc := processor{Crashing: remittancetest.Crashing[balance.PayRequest]{Payer: sbx, Outside: outside,
				ID: func(r balance.PayRequest) string { return r.PayoutID }}, enrol: sbx.Enrol}
			svc := balance.New(balance.Config{Store: d.Store, Queue: d.Queue, Processor: proc})
			pays, err := checkout.BuildCheckoutPayments(d)
			if err != nil {
				return nil, nil, err
			}
			txs, err := transactions.BuildTransactions(d)
			if err != nil {
				return nil, nil, err
			}
			return svc.Consume, []httpapi.Group{pays, txs, svc.Group()}, nil
		}}.Main()
}

// processor is the sandbox processor whose payments note each answer (and
// die when asked to).
type processor struct {
	remittancetest.Crashing[balance.PayRequest]
	enrol func(string) string
}

func (p processor) Enrol(number string) string { return p.enrol(number) }

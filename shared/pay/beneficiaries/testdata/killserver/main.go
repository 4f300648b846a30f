// Command killserver is the payment orders crash test's server
// (remittancetest.Server): the invoices routes (a paid invoice funds the
// balance), the beneficiaries, distributions and payment order routes and
// the payment orders consumer, as make run serves them. With
// CRASH_AFTER_BANK=1 the process sends itself SIGKILL right after the
// sandbox bank answered (its own record written), before the consumer
// records the answer: the crash the test is about. Each bank call appends a
// line to $DATA_DIR/bank-calls, so the test can count them across
// processes.
package main

import (
	"github.com/paygate/paygate/shared/pay/beneficiaries"
	"github.com/paygate/paygate/shared/pay/invoices"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/sandbox/bank"
	"github.com/paygate/paygate/shared/testkit/apitest/crashtest"
	"github.com/paygate/paygate/shared/testkit/remittancetest"
)

func main() {
	remittancetest.Server{Queue: queue.PaymentOrders, Calls: "bank-calls", Crash: "CRASH_AFTER_BANK",
		Build: func(d *app.Deps, outside crashtest.Outside) (queue.Handler, []httpapi.Group, error) {
			bank := remittancetest.Crashing[beneficiaries.BankRequest]{Payer: bank.New(d.Store, nil), Outside: outside,
				ID: func(r beneficiaries.BankRequest) string { return r.PaymentOrderID }}
			svc := beneficiaries.New(beneficiaries.Config{Store: d.Store, Queue: d.Queue, Bank: bank})
			inv, err := invoices.BuildInvoices(d)
			if err != nil {
				return nil, nil, err
			}
			return svc.Consume, []httpapi.Group{inv, svc.Group()}, nil
		}}.Main()
}

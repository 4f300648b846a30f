// Command killserver is the payouts crash test's server: checkout payments
// (a card captured at authorisation funds the balance), the transactions
// routes, the balance and payout routes and the payouts consumer, in one process over
// the embedded store and queue in $DATA_DIR with the sandbox key
// $SANDBOX_API_KEY (shared/apitest/crashtest), as make run serves them.
// With CRASH_AFTER_PAY=1 the process sends itself SIGKILL right after the
// sandbox payout processor answered (its own record written), before the
// consumer records the answer: the crash the test is about. Each processor
// call appends a line to $DATA_DIR/processor-calls, so the test can count
// them across processes. At start it releases the messages a killed run had
// received, as the local gateway does.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/paygate/paygate/shared/apitest/crashtest"
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/balance"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/wiring/checkoutwire"
	"github.com/paygate/paygate/shared/wiring/paywire"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "killserver:", err)
		os.Exit(1)
	}
}

// crashing wraps the sandbox processor: it notes each call and, when asked
// to, dies right after the processor answered.
type crashing struct {
	balance.Processor
	outside crashtest.Outside
}

func (c crashing) Pay(ctx context.Context, r balance.PayRequest) (balance.PayResult, error) {
	res, err := c.Processor.Pay(ctx, r)
	c.outside.Answered(r.PayoutID)
	return res, err
}

func run() error {
	ctx := context.Background()
	d, _, err := crashtest.Open(ctx)
	if err != nil {
		return err
	}
	proc := crashing{Processor: balance.NewSandbox(d.Store, nil), outside: crashtest.OutsideFromEnv("processor-calls", "CRASH_AFTER_PAY")}
	svc := balance.New(balance.Config{Store: d.Store, Queue: d.Queue, Processor: proc})
	pays, err := checkoutwire.CheckoutPayments(d)
	if err != nil {
		return err
	}
	txs, err := paywire.Transactions(d)
	if err != nil {
		return err
	}
	if err := crashtest.Consume(ctx, d, queue.Payouts, app.SQSLambda(svc.Consume)); err != nil {
		return err
	}
	return crashtest.Serve(d.Server(pays, txs, svc.Group()))
}

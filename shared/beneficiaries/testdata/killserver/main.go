// Command killserver is the payment orders crash test's server: the
// invoices routes (a paid invoice funds the balance), the beneficiaries,
// distributions and payment order routes and the payment orders consumer,
// in one process over the embedded store and queue in $DATA_DIR with the
// sandbox key $SANDBOX_API_KEY (shared/apitest/crashtest), as make run
// serves them. With CRASH_AFTER_BANK=1 the process sends itself SIGKILL
// right after the sandbox bank answered (its own record written), before the
// consumer records the answer: the crash the test is about. Each bank call
// appends a line to $DATA_DIR/bank-calls, so the test can count them across
// processes. At start it releases the messages a killed run had received,
// as the local gateway does.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/paygate/paygate/shared/apitest/crashtest"
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/beneficiaries"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/wiring/invoicewire"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "killserver:", err)
		os.Exit(1)
	}
}

// crashing wraps the sandbox bank: it notes each call and, when asked to,
// dies right after the bank answered.
type crashing struct {
	beneficiaries.Bank
	outside crashtest.Outside
}

func (c crashing) Pay(ctx context.Context, r beneficiaries.BankRequest) (beneficiaries.BankResult, error) {
	res, err := c.Bank.Pay(ctx, r)
	c.outside.Answered(r.PaymentOrderID)
	return res, err
}

func run() error {
	ctx := context.Background()
	d, _, err := crashtest.Open(ctx)
	if err != nil {
		return err
	}
	bank := crashing{Bank: beneficiaries.NewSandboxBank(d.Store, nil), outside: crashtest.OutsideFromEnv("bank-calls", "CRASH_AFTER_BANK")}
	svc := beneficiaries.New(beneficiaries.Config{Store: d.Store, Queue: d.Queue, Bank: bank})
	inv, err := invoicewire.Invoices(d)
	if err != nil {
		return err
	}
	if err := crashtest.Consume(ctx, d, queue.PaymentOrders, app.SQSLambda(svc.Consume)); err != nil {
		return err
	}
	return crashtest.Serve(d.Server(inv, svc.Group()))
}

// Command killserver is the wallet crash test's server: the wallet routes,
// the confirmation worker and the expirer, in one process over the embedded
// store and queue in $DATA_DIR, with the sandbox key $SANDBOX_API_KEY
// (shared/testkit/apitest/crashtest), as make run serves them but with the
// confirmation timeout shortened to $CONFIRM_TIMEOUT so the test need not
// wait 5 minutes. The test kills it with SIGKILL while
// transactions are PROCESSING and starts it again on the same data.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/paygate/paygate/shared/sandbox/walletprovider"

	"github.com/paygate/paygate/shared/pay/wallet"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/testkit/apitest/crashtest"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "killserver:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx := context.Background()
	timeout, err := time.ParseDuration(os.Getenv("CONFIRM_TIMEOUT"))
	if err != nil {
		return err
	}
	d, _, err := crashtest.Open(ctx)
	if err != nil {
		return err
	}
	svc := wallet.New(wallet.Config{Store: d.Store, Queue: d.Queue, ConfirmTimeout: timeout, Provider: walletprovider.New(time.Second)})
	poller := &app.Poller{Queue: d.Queue, Name: queue.WalletConfirmations, Handler: app.SQSLambda(svc.Consume), Wait: 100 * time.Millisecond}
	go poller.Run(ctx)
	go app.Every(ctx, 500*time.Millisecond, func(ctx context.Context) error { _, err := svc.Expire(ctx); return err }, nil)
	return crashtest.Serve(d.Server(svc.Group()))
}

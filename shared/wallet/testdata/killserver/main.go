// Command killserver is the wallet crash test's server: the wallet routes,
// the confirmation worker and the expirer, in one process over the embedded
// store and queue in $DATA_DIR, with the sandbox key $SANDBOX_API_KEY, as
// make run serves them but with the confirmation timeout shortened to
// $CONFIRM_TIMEOUT so the test need not wait 5 minutes. It prints
// "LISTEN <addr>" once serving. The test kills it with SIGKILL while
// transactions are PROCESSING and starts it again on the same data.
package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/paygate/paygate/shared/accounts"
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/queue/boltqueue"
	"github.com/paygate/paygate/shared/store/boltstore"
	"github.com/paygate/paygate/shared/wallet"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "killserver:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx := context.Background()
	dir, secret := os.Getenv("DATA_DIR"), os.Getenv("SANDBOX_API_KEY")
	timeout, err := time.ParseDuration(os.Getenv("CONFIRM_TIMEOUT"))
	if err != nil {
		return err
	}
	st, err := boltstore.Open(filepath.Join(dir, "store.db"), nil)
	if err != nil {
		return err
	}
	q, err := boltqueue.Open(filepath.Join(dir, "queue.db"), nil)
	if err != nil {
		return err
	}
	d := app.WithStore(st, q, nil, nil)
	if err := sandbox(ctx, d, secret); err != nil {
		return err
	}
	svc := wallet.New(wallet.Config{Store: st, Queue: q, ConfirmTimeout: timeout, ApproveDelay: time.Second})
	poller := &app.Poller{Queue: q, Name: queue.WalletConfirmations, Handler: svc.HandleSQS, Wait: 100 * time.Millisecond}
	go poller.Run(ctx)
	go svc.RunExpirer(ctx, 500*time.Millisecond)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println("LISTEN", ln.Addr().String())
	return http.Serve(ln, d.Server(svc.Group()))
}

// sandbox registers the sandbox key's account unless it exists.
func sandbox(ctx context.Context, d *app.Deps, secret string) error {
	if _, err := d.Keys.Authenticate(ctx, secret); err == nil {
		return nil
	}
	a, err := d.Accounts.Create(ctx, accounts.NewAccount{Name: "Sandbox", Mode: accounts.Test})
	if err != nil {
		return err
	}
	_, err = d.Keys.Import(ctx, a.ID, secret, "sandbox")
	return err
}

// Command killserver is the transactions crash test's server: the checkout
// payments routes (to authorise a card) and the transactions routes, in one
// process over the embedded store in $DATA_DIR, with the sandbox key
// $SANDBOX_API_KEY, as make run serves them. It prints "LISTEN <addr>" once
// serving. The test kills it with SIGKILL while a refund is in flight and
// starts it again on the same data.
package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"

	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/pay/transactions"

	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/queue/boltqueue"
	"github.com/paygate/paygate/shared/store/boltstore"
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
	pays, err := checkout.BuildCheckoutPayments(d)
	if err != nil {
		return err
	}
	txs, err := transactions.BuildTransactions(d)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println("LISTEN", ln.Addr().String())
	return http.Serve(ln, d.Server(pays, txs))
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

// Command killserver is the orders crash test's server: the orders, balance
// and deposit routes, the fulfilment worker and the reconciler, in one
// process over the embedded store and queue in $DATA_DIR, with the sandbox
// key $SANDBOX_API_KEY. It prints "LISTEN <addr>" once serving. The test
// kills it with SIGKILL mid-burst and starts it again on the same data.
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
	"github.com/paygate/paygate/shared/gate/catalog"
	"github.com/paygate/paygate/shared/gate/ledger"
	"github.com/paygate/paygate/shared/gate/orders"
	"github.com/paygate/paygate/shared/queue"
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
	acct, err := sandbox(ctx, d, secret)
	if err != nil {
		return err
	}
	err = catalog.NewRepo(st).Load(ctx, acct, &catalog.File{
		ProductTypes: catalog.StandardTypes,
		Categories:   []catalog.Category{{ID: 1, Name: "Cards", Slug: "cards"}},
		Products: []catalog.Product{{ID: 1, Name: "Card 10", Slug: "card-10", CategoryID: 1, ProductTypeID: 1,
			TypeCode: catalog.TypeRedeemCard, RegionCode: "GLOBAL", CurrencyCode: "USD", IsActive: true, Price: 1000}},
	})
	if err != nil {
		return err
	}
	svc := orders.New(orders.Config{Store: st, Queue: q, SerializeBalances: true, ProductTTL: time.Minute})
	srv := d.Server(svc.Group(), ledger.Group(ledger.New(st, nil)))
	poller := &app.Poller{Queue: q, Name: queue.Fulfilment, Handler: svc.HandleSQS, Wait: time.Second}
	go poller.Run(ctx)
	go svc.RunReconciler(ctx, time.Second)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println("LISTEN", ln.Addr().String())
	return http.Serve(ln, srv)
}

// sandbox finds the account of the sandbox key, or creates it.
func sandbox(ctx context.Context, d *app.Deps, secret string) (string, error) {
	if k, err := d.Keys.Authenticate(ctx, secret); err == nil {
		return k.AccountID, nil
	}
	a, err := d.Accounts.Create(ctx, accounts.NewAccount{Name: "Sandbox", Mode: accounts.Test})
	if err != nil {
		return "", err
	}
	if _, err := d.Keys.Import(ctx, a.ID, secret, "sandbox"); err != nil {
		return "", err
	}
	return a.ID, nil
}

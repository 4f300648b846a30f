// Command killserver is the orders crash test's server: the orders, balance
// and deposit routes, the fulfilment worker and the reconciler, in one
// process over the embedded store and queue in $DATA_DIR, with the sandbox
// key $SANDBOX_API_KEY (shared/testkit/apitest/crashtest). The test kills it with
// SIGKILL mid-burst and starts it again on the same data.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/paygate/paygate/shared/gate/catalog"
	"github.com/paygate/paygate/shared/gate/orders"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/sandbox/gatesupplier"
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
	d, acct, err := crashtest.Open(ctx)
	if err != nil {
		return err
	}
	err = catalog.NewRepo(d.Store).Load(ctx, acct, &catalog.File{
		ProductTypes: catalog.StandardTypes,
		Categories:   []catalog.Category{{ID: 1, Name: "Cards", Slug: "cards"}},
		Products: []catalog.Product{{ID: 1, Name: "Card 10", Slug: "card-10", CategoryID: 1, ProductTypeID: 1,
			TypeCode: catalog.TypeRedeemCard, RegionCode: "GLOBAL", CurrencyCode: "USD", IsActive: true, Price: 1000}},
	})
	if err != nil {
		return err
	}
	svc := orders.New(orders.Config{Store: d.Store, Queue: d.Queue, Test: gatesupplier.New(), SerializeBalances: true, ProductTTL: time.Minute})
	poller := &app.Poller{Queue: d.Queue, Name: queue.Fulfilment, Handler: app.SQSLambda(svc.Consume), Wait: time.Second}
	go poller.Run(ctx)
	go app.Every(ctx, time.Second, func(ctx context.Context) error { _, err := svc.Reconcile(ctx); return err }, nil)
	return crashtest.Serve(d.Server(svc.Group(), prepaid.Group(prepaid.New(d.Store, nil))))
}

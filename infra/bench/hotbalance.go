package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/paygate/paygate/shared/gate/orders"

	"github.com/paygate/paygate/infra/bench/load"
	"github.com/paygate/paygate/infra/invoke/sample"
	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/queue/boltqueue"
	"github.com/paygate/paygate/shared/store"
)

// hotBalanceClients are the client counts of the one-balance rows.
var hotBalanceClients = []int{1, 10, 50}

// plainStore hides the store's Submit (store.Pipeliner), so orders commit
// one at a time as before the combining: the "before" row.
type plainStore struct{ store.Store }

// hotBalanceRows measures orders per second on ONE balance (one account,
// one currency) at 1, 10 and 50 concurrent clients, on the embedded store
// and on DynamoDB Local, through the GateOrdersFunction's own handler in
// this process (as the local gateway serves it), and checks afterwards that
// the balance fell by exactly the price of every order answered 201. On
// DynamoDB a 50-client row without combining gives the figure before it.
func hotBalanceRows(ctx context.Context, o options) ([]row, error) {
	var rows []row
	price, err := productPrice(benchProduct)
	if err != nil {
		return nil, err
	}
	run := func(storeName string, d *app.Deps, clients int, note string) error {
		g, err := orders.BuildGateOrders(d)
		if err != nil {
			return err
		}
		srv := httptest.NewServer(d.Server(g))
		defer srv.Close()
		k, err := d.Keys.Authenticate(ctx, sample.Key)
		if err != nil {
			return err
		}
		led := prepaid.New(d.Store, d.Clock)
		before, err := led.Balance(ctx, k.AccountID, fundCurrency)
		if err != nil {
			return err
		}
		var combined0 dynamostore.CombineStats
		ds, isDynamo := d.Store.(*dynamostore.Store)
		if isDynamo {
			combined0 = ds.CombineStats()
		}
		runID := time.Now().UnixNano()
		c := orderCase(runID, sample.Key)
		res, err := load.Run(ctx, load.Config{URL: srv.URL + c.path, Method: http.MethodPost, Body: c.body, Headers: c.headers,
			Concurrency: clients, Duration: o.loadFor, Requests: o.loadRequests, Check: func(_ int, b []byte) error { return c.check(b) }, CheckEvery: 20})
		if err != nil {
			return err
		}
		after, err := led.Balance(ctx, k.AccountID, fundCurrency)
		if err != nil {
			return err
		}
		ok := res.StatusCounts[c.want]
		exact := before.Available-after.Available == int64(ok)*price
		value := fmt.Sprintf("%.0f orders/s (p50 %v, p99 %v; %d orders, answers %v)", float64(ok)/res.Elapsed.Seconds(),
			res.P50.Round(time.Millisecond), res.P99.Round(time.Millisecond), ok, res.StatusCounts)
		if isDynamo {
			cs := ds.CombineStats()
			if calls := cs.Calls - combined0.Calls; calls > 0 {
				value += fmt.Sprintf("; %.1f orders per TransactWriteItems (%d fallbacks)", float64(cs.Writes-combined0.Writes)/float64(calls), cs.Fallbacks-combined0.Fallbacks)
			}
		}
		if !exact {
			value += fmt.Sprintf("; BALANCE MOVED %d, %d orders x %d", before.Available-after.Available, ok, price)
		}
		target, okCell := "report; the balance moves by exactly the orders' prices", verdict(exact && res.CheckFailed == 0)
		if storeName == "DynamoDB Local" && clients == 50 && note == "" {
			target = ">= 150 orders/s, exact balance"
			okCell = verdict(exact && res.CheckFailed == 0 && float64(ok)/res.Elapsed.Seconds() >= 150)
		}
		rows = append(rows, row{name: fmt.Sprintf("one balance: POST /orders on %s, %d clients%s", storeName, clients, note), value: value, target: target, ok: okCell})
		return nil
	}
	fund := func(d *app.Deps) error {
		k, err := d.Keys.Authenticate(ctx, sample.Key)
		if err != nil {
			return err
		}
		_, _, err = prepaid.New(d.Store, d.Clock).PostDeposit(ctx, k.AccountID, prepaid.Deposit{Currency: fundCurrency, Amount: 1 << 40})
		return err
	}
	// The embedded store: the in-process server's store.
	{
		_, d, stop, err := inProcessServer(ctx)
		if err != nil {
			return rows, err
		}
		err = fund(d)
		for _, c := range hotBalanceClients {
			if err == nil {
				err = run("the embedded store", d, c, "")
			}
		}
		stop()
		if err != nil {
			return rows, err
		}
	}
	endpoint := os.Getenv("DYNAMODB_ENDPOINT")
	if endpoint == "" {
		return append(rows, row{name: "one balance: POST /orders on DynamoDB Local", value: "skipped: DYNAMODB_ENDPOINT unset", target: "-", ok: "-"}), nil
	}
	d, _, cleanup, err := dynamoDeps(ctx, endpoint)
	if err != nil {
		return rows, err
	}
	defer cleanup()
	dir, err := os.MkdirTemp("", "paygate-bench-hot-")
	if err != nil {
		return rows, err
	}
	defer os.RemoveAll(dir)
	q, err := boltqueue.Open(filepath.Join(dir, "queue.db"), d.Clock)
	if err != nil {
		return rows, err
	}
	defer q.Close()
	d.Queue = q
	if err := seedDemo(ctx, d); err != nil {
		return rows, err
	}
	if err := fund(d); err != nil {
		return rows, err
	}
	for _, c := range hotBalanceClients {
		if err := run("DynamoDB Local", d, c, ""); err != nil {
			return rows, err
		}
	}
	plain := *d
	plain.Store = plainStore{d.Store}
	if err := run("DynamoDB Local", &plain, 50, " without combining (before)"); err != nil {
		return rows, err
	}
	return rows, nil
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/gate/orders"

	"github.com/paygate/paygate/infra/democatalog"
	"github.com/paygate/paygate/infra/invoke/sample"
	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/gate/catalog"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/queue/boltqueue"
)

// benchProduct is the spec's example order: "Google Play 10 USD" of the demo
// catalog, quantity 1.
const benchProduct = 131

// Test deposits that fund the order rows: a few large ones, each with its
// own external_ref (amount and minor units must agree).
const (
	fundAmount      = "900000.00"
	fundAmountMinor = 900000_00
	fundCurrency    = "USD"
)

func orderCase(runID int64, key string) loadCase {
	return loadCase{
		name: fmt.Sprintf("POST /orders (product %d, quantity 1)", benchProduct), path: "/orders",
		want: http.StatusCreated, unit: "orders/s", minRatio: fastRatio, maxP99: fastP99,
		headers: secretHeaders(key, runID, "bench-order"),
		body:    func(int) []byte { return fmt.Appendf(nil, `{"product_id":%d,"quantity":1}`, benchProduct) },
		check: func(b []byte) error {
			var v struct {
				ID        string `json:"id"`
				ProductID int64  `json:"product_id"`
			}
			if err := json.Unmarshal(b, &v); err != nil || v.ID == "" || v.ProductID != benchProduct {
				return fmt.Errorf("not an order of product %d: %s", benchProduct, b)
			}
			return nil
		},
	}
}

// productPrice is the price, in minor units, of a fixed-price product of the
// demo catalog the gateway seeds.
func productPrice(id int64) (int64, error) {
	f, err := catalog.ParseFile(democatalog.Demo)
	if err != nil {
		return 0, err
	}
	for _, p := range f.Products {
		if p.ID == id {
			if p.Price <= 0 {
				return 0, fmt.Errorf("demo product %d has no fixed price", id)
			}
			return p.Price, nil
		}
	}
	return 0, fmt.Errorf("demo catalog has no product %d", id)
}

// fundOrders posts enough test deposits through POST /test-helpers/deposits
// that maxOrders orders (and the probe) cannot be refused for balance.
func fundOrders(ctx context.Context, t target, runID int64, maxOrders int) error {
	price, err := productPrice(benchProduct)
	if err != nil {
		return err
	}
	need := price * int64(maxOrders+1)
	for n := 0; int64(n)*fundAmountMinor < need; n++ {
		body := fmt.Sprintf(`{"currency_code":%q,"amount":%q,"external_ref":"bench-fund-%d-%d"}`, fundCurrency, fundAmount, runID, n)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url+"/test-helpers/deposits", strings.NewReader(body))
		if err != nil {
			return err
		}
		req.Header = secretHeaders(t.key, runID, "")(n)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			return fmt.Errorf("test deposit %d answered %d: %s", n, resp.StatusCode, b)
		}
	}
	return nil
}

// orderDynamoRows reports the DynamoDB calls of POST /orders on DynamoDB
// Local (shared/gate/orders/calls_test.go asserts the same counts).
func orderDynamoRows(ctx context.Context) ([]row, error) {
	endpoint := os.Getenv("DYNAMODB_ENDPOINT")
	if endpoint == "" {
		return []row{{name: "DynamoDB calls per order", value: "skipped: DYNAMODB_ENDPOINT unset", target: "-", ok: "-"}}, nil
	}
	c, err := measureOrderCalls(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	return []row{
		{name: "DynamoDB calls: POST /orders, first order of an instance (cold caches)", value: formatCounts(c.cold), target: "report", ok: "-"},
		{name: "DynamoDB calls: POST /orders, new order", value: formatCounts(c.created),
			target: "one write call, at most two reads (key + idempotency), no Scan", ok: verdict(newOrderOK(c.created))},
		{name: "DynamoDB calls: POST /orders, replayed order", value: formatCounts(c.replayed),
			target: "no write, no Scan", ok: verdict(writeCalls(c.replayed) == 0 && c.replayed["Scan"] == 0)},
	}, nil
}

func writeCalls(m map[string]int) int {
	return m["PutItem"] + m["UpdateItem"] + m["DeleteItem"] + m["TransactWriteItems"] + m["BatchWriteItem"]
}

// newOrderOK is issue 3's target: one write call, at most two reads, and
// nothing else.
func newOrderOK(m map[string]int) bool {
	reads := m["GetItem"] + m["BatchGetItem"] + m["TransactGetItems"] + m["Query"]
	return m["Scan"] == 0 && writeCalls(m) == 1 && reads <= 2 && total(m) == 1+reads
}

type orderCalls struct{ cold, created, replayed map[string]int }

// measureOrderCalls places orders through the GateOrdersFunction's own
// builder on fresh DynamoDB Local tables holding the demo catalog and a
// deposit: a first order (cold caches), a new one, and its replay.
func measureOrderCalls(ctx context.Context, endpoint string) (orderCalls, error) {
	var out orderCalls
	counter := dynamostore.NewCallCounter()
	d, _, cleanup, err := dynamoDeps(ctx, endpoint, counter.Option())
	if err != nil {
		return out, err
	}
	defer cleanup()
	// An order queues its fulfilment: an embedded queue takes the message
	// (SQS is no DynamoDB call, so it does not change the counts).
	dir, err := os.MkdirTemp("", "paygate-bench-orders-")
	if err != nil {
		return out, err
	}
	defer os.RemoveAll(dir)
	q, err := boltqueue.Open(filepath.Join(dir, "queue.db"), d.Clock)
	if err != nil {
		return out, err
	}
	defer q.Close()
	d.Queue = q
	if err := seedDemo(ctx, d); err != nil {
		return out, err
	}
	k, err := d.Keys.Authenticate(ctx, sample.Key)
	if err != nil {
		return out, err
	}
	if _, _, err := prepaid.New(d.Store, d.Clock).PostDeposit(ctx, k.AccountID, prepaid.Deposit{Currency: fundCurrency, Amount: 1000_00}); err != nil {
		return out, err
	}
	g, err := orders.BuildGateOrders(d)
	if err != nil {
		return out, err
	}
	srv := httptest.NewServer(d.Server(g))
	defer srv.Close()
	c := orderCase(time.Now().UnixNano(), sample.Key)
	var firstID string
	place := func(i int, replay bool) (map[string]int, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+c.path, bytes.NewReader(c.body(i)))
		if err != nil {
			return nil, err
		}
		req.Header = c.headers(i)
		counter.Reset()
		resp, err := srv.Client().Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		counts := counter.Counts()
		if resp.StatusCode != c.want {
			return nil, fmt.Errorf("POST /orders answered %d: %s", resp.StatusCode, strings.TrimSpace(string(b)))
		}
		var o struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(b, &o)
		switch {
		case !replay:
			firstID = o.ID
		case resp.Header.Get("Idempotent-Replayed") != "true" || o.ID != firstID:
			return nil, fmt.Errorf("the replay is not the first order (%s): Idempotent-Replayed %q, %s",
				firstID, resp.Header.Get("Idempotent-Replayed"), b)
		}
		return counts, c.check(b)
	}
	if out.cold, err = place(0, false); err != nil {
		return out, err
	}
	if out.created, err = place(1, false); err != nil {
		return out, err
	}
	out.replayed, err = place(1, true)
	return out, err
}

package orders

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/gate/catalog"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/health"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/sandbox/gatesupplier"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// BenchmarkOrdersVsHealth drives the orders route of a server over the
// embedded store (the local gateway's setup) with 50 concurrent clients and
// unique keys, beside GET /health on the same server, and reports orders/s,
// p50/p99 and the throughput ratio.
func BenchmarkOrdersVsHealth(b *testing.B) {
	e := &env{}
	build := func(d *app.Deps) (httpapi.Group, error) {
		e.svc = New(Config{Store: d.Store, Queue: d.Queue, Test: gatesupplier.New(), Clock: d.Clock, SerializeBalances: true, ProductTTL: time.Minute})
		return e.svc.Group(), nil
	}
	e.Env = apitest.NewWith(b, apitest.Options{}, build, func(*app.Deps) (httpapi.Group, error) { return health.Group(), nil })
	e.led = prepaid.New(e.Deps.Store, e.Deps.Clock)
	if err := catalog.NewRepo(e.Deps.Store).Load(context.Background(), e.Account.ID, testCatalog); err != nil {
		b.Fatal(err)
	}
	e.deposit(e.Account.ID, "USD", 1_000_000_000_000)
	const clients = 50
	n := max(b.N, 2000)
	var seq atomic.Int64
	health := drive(b, e, clients, n, func() (*http.Request, int) {
		req, _ := http.NewRequest("GET", e.URL+"/health", nil)
		return req, 200
	})
	b.ResetTimer()
	orders := drive(b, e, clients, n, func() (*http.Request, int) {
		req, _ := http.NewRequest("POST", e.URL+"/orders", strings.NewReader(`{"product_id": 1}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", e.Key)
		req.Header.Set("Idempotency-Key", fmt.Sprintf("bench-%d", seq.Add(1)))
		return req, 201
	})
	b.StopTimer()
	b.ReportMetric(orders.rps, "orders/s")
	b.ReportMetric(float64(orders.p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(orders.p99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(health.rps, "health/s")
	b.ReportMetric(orders.rps/health.rps, "orders/health")
}

type stats struct {
	rps      float64
	p50, p99 time.Duration
}

// drive sends n requests from clients goroutines and measures them.
func drive(b *testing.B, e *env, clients, n int, mk func() (*http.Request, int)) stats {
	var next atomic.Int64
	lat := make([]time.Duration, n)
	cli := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	var wg sync.WaitGroup
	start := time.Now()
	for range clients {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				req, want := mk()
				t0 := time.Now()
				res, err := cli.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				res.Body.Close()
				lat[i] = time.Since(t0)
				if res.StatusCode != want {
					b.Errorf("status %d, want %d", res.StatusCode, want)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return stats{rps: float64(n) / elapsed.Seconds(), p50: lat[n/2], p99: lat[n*99/100]}
}

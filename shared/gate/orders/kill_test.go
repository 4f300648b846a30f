package orders

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/testkit/apitest/crashtest"
)

// TestKill9MidBurst: the server is killed with SIGKILL during a burst of
// orders and restarted on the same data. Every order whose 201 reached the
// client exists, and balance = posted deposits - charges of orders that did
// not fail (pending and completed ones hold their charge; failed ones were
// refunded in the same transaction as their failure).
func TestKill9MidBurst(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a server")
	}
	bin := crashtest.Build(t, "./testdata/killserver")
	dataDir := t.TempDir()
	const key = "sk_test_killtest0123456789abcdefghijklmn"

	base, stop := startServer(t, bin, dataDir, key)
	do := crashtest.Client{Key: key}.Do

	usd := mustCurrency(t, "USD")
	var deposits int64
	for i := range 3 {
		st, _, err := do(base, "POST", "/test-helpers/deposits", map[string]any{"currency_code": "USD", "amount": "1000.00", "external_ref": fmt.Sprintf("dep-%d", i)}, "")
		require.NoError(t, err)
		require.Equal(t, 201, st)
		deposits += 100000
	}

	var mu sync.Mutex
	acked := map[string]bool{}
	var sent atomic.Int64
	var wg sync.WaitGroup
	done := make(chan struct{})
	for w := range 16 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				ref := fmt.Sprintf("w%d-%d", w, i)
				if i%4 == 0 {
					ref += "-fail" // the sandbox fails these: refunds mid-burst too
				}
				sent.Add(1)
				st, m, err := do(base, "POST", "/orders", map[string]any{"product_id": 1, "external_ref": ref}, "burst-"+ref)
				if err != nil {
					continue // the server died under this request
				}
				if st == 201 {
					mu.Lock()
					acked[m["id"].(string)] = true
					mu.Unlock()
				}
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	stop() // SIGKILL
	close(done)
	wg.Wait()
	t.Logf("sent %d orders, %d acknowledged with 201 before the kill", sent.Load(), len(acked))
	require.NotEmpty(t, acked, "the burst ran before the kill")

	base, _ = startServer(t, bin, dataDir, key)
	for id := range acked {
		st, m, err := do(base, "GET", "/orders/"+id, nil, "")
		require.NoError(t, err)
		require.Equal(t, 200, st, "acknowledged order %s survives the crash: %v", id, m)
	}
	// The worker keeps fulfilling after the restart: take the list between
	// two equal balance reads so no outcome lands in between.
	balance := func() int64 {
		st, m, err := do(base, "GET", "/balance", nil, "")
		require.NoError(t, err)
		require.Equal(t, 200, st)
		for _, row := range m["data"].([]any) {
			r := row.(map[string]any)
			if r["currency_code"] == "USD" {
				v, err := money.ParseDecimalField("available", r["available"].(string), usd)
				require.NoError(t, err)
				return v
			}
		}
		return 0
	}
	list := func() (count int, charged int64) {
		cursor := ""
		for {
			path := "/orders?limit=100"
			if cursor != "" {
				path += "&cursor=" + cursor
			}
			st, m, err := do(base, "GET", path, nil, "")
			require.NoError(t, err)
			require.Equal(t, 200, st)
			for _, it := range m["data"].([]any) {
				o := it.(map[string]any)
				count++
				if o["status"] != "failed" {
					v, err := money.ParseDecimalField("", o["charged_amount"].(string), usd)
					require.NoError(t, err)
					charged += v
				}
			}
			if m["has_more"] != true {
				return count, charged
			}
			cursor = m["next_cursor"].(string)
		}
	}
	var count int
	var charged, available int64
	for attempt := 0; ; attempt++ {
		before := balance()
		count, charged = list()
		available = balance()
		if before == available {
			break
		}
		require.Less(t, attempt, 50, "the balance never held still")
		time.Sleep(50 * time.Millisecond)
	}
	require.GreaterOrEqual(t, count, len(acked))
	t.Logf("%d orders stored; deposits %d, charges of orders not failed %d, balance %d", count, deposits, charged, available)
	require.Equal(t, deposits-charged, available)
}

// startServer runs the server binary on dataDir and returns its base URL and a
// function that kills it with SIGKILL.
func startServer(t *testing.T, bin, dataDir, key string) (string, func()) {
	t.Helper()
	p := crashtest.Start(t, bin, map[string]string{"DATA_DIR": dataDir, "SANDBOX_API_KEY": key}, crashtest.Ready)
	return p.URL(), p.Kill
}

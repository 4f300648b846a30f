package main

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/testkit/apitest/crashtest"
)

// proc is the gateway run as `make run` runs it: its own process.
type proc struct {
	*crashtest.Proc
	gw *gateway
}

// startProc starts the built gateway on dataDir and waits for its banner.
func startProc(t *testing.T, bin, dataDir, key string) *proc {
	t.Helper()
	p := crashtest.Start(t, bin, map[string]string{"DATA_DIR": dataDir, "PORT": "0", "SANDBOX_API_KEY": key, "LOG_LEVEL": "error"},
		"paygate local gateway: http://")
	return &proc{Proc: p, gw: &gateway{addr: p.Addr}}
}

// kill -9 of `make run` while a delivery is in flight (the event committed,
// published and received by the sender, the POST not yet answered): after a
// restart on the same data the event is delivered, with the same id.
func TestKill9BetweenCommitAndDelivery(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the gateway")
	}
	bin := crashtest.Build(t, ".")
	dir := t.TempDir()
	const key = "sk_test_killwebhooks0123456789abcdefg"

	var mu sync.Mutex
	var running *proc
	var ids []string
	killed := make(chan struct{})
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		ids = append(ids, r.Header.Get("Service-Event-Id"))
		if len(ids) == 1 {
			// The first delivery: the gateway dies before it hears an answer.
			running.Kill()
			close(killed)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer rc.Close()

	p := startProc(t, bin, dir, key)
	mu.Lock()
	running = p
	mu.Unlock()
	status, ep := p.gw.post(t, "/v1/webhook-endpoints", key, map[string]any{"url": rc.URL, "enabled_events": []string{"order.completed"}})
	require.Equal(t, 201, status, "%v", ep)
	status, _ = p.gw.post(t, "/test-helpers/deposits", key, map[string]any{"currency_code": "USD", "amount": "50.00"})
	require.Equal(t, 201, status)
	status, order := p.gw.post(t, "/orders", key, map[string]any{"product_id": 131})
	require.Equal(t, 201, status, "%v", order)
	// The delivery this commits kills the gateway, which may be before the
	// answer reaches us: the delivery is the proof of the commit.
	_, _, _ = p.gw.tryPost("/test-helpers/orders/"+order["id"].(string)+"/complete", key, map[string]any{})

	select {
	case <-killed:
	case <-time.After(20 * time.Second):
		t.Fatal("not killed: no delivery started")
	}

	// The delivery was claimed when the gateway died: after the restart its
	// message finds the claim, waits for it, and comes back once it lapsed
	// (webhooks.SendLease), then delivers.
	p = startProc(t, bin, dir, key)
	mu.Lock()
	running = p
	mu.Unlock()
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(ids) >= 2
	}, 90*time.Second, 20*time.Millisecond, "not delivered after the restart")
	mu.Lock()
	require.Equal(t, ids[0], ids[1], "the same event, redelivered")
	mu.Unlock()
	// The sender records an attempt after the receiver answered it: wait
	// for that record, then hold it to exactly one.
	var as []any
	require.Eventually(t, func() bool {
		status, list := p.gw.get(t, "/v1/webhook-endpoints/"+ep["id"].(string)+"/deliveries", key)
		require.Equal(t, 200, status)
		as = list["data"].([]any)
		return len(as) > 0
	}, 10*time.Second, 20*time.Millisecond, "the attempt after the restart was never recorded")
	time.Sleep(200 * time.Millisecond) // room for a wrongly recorded second attempt to show
	status, list := p.gw.get(t, "/v1/webhook-endpoints/"+ep["id"].(string)+"/deliveries", key)
	require.Equal(t, 200, status)
	as = list["data"].([]any)
	require.Len(t, as, 1, "the killed attempt was never recorded; the one after the restart was")
	require.Equal(t, "succeeded", as[0].(map[string]any)["status"])
}

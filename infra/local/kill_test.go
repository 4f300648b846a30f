package main

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// proc is the gateway run as `make run` runs it: its own process.
type proc struct {
	cmd *exec.Cmd
	gw  *gateway
}

// startProc starts the built gateway on dataDir and waits for its banner.
func startProc(t *testing.T, bin, dataDir, key string) *proc {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "DATA_DIR="+dataDir, "PORT=0", "SANDBOX_API_KEY="+key, "LOG_LEVEL=error")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "paygate local gateway: http://"); ok {
				addr <- u
			}
		}
	}()
	select {
	case a := <-addr:
		return &proc{cmd: cmd, gw: &gateway{addr: a}}
	case <-time.After(30 * time.Second):
		t.Fatal("the gateway did not start")
	}
	return nil
}

// kill -9 of `make run` while a delivery is in flight (the event committed,
// published and received by the sender, the POST not yet answered): after a
// restart on the same data the event is delivered, with the same id.
func TestKill9BetweenCommitAndDelivery(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the gateway")
	}
	bin := filepath.Join(t.TempDir(), "gateway")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
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
			_ = running.cmd.Process.Signal(syscall.SIGKILL)
			_, _ = running.cmd.Process.Wait()
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
	p.gw.post(t, "/test-helpers/orders/"+order["id"].(string)+"/complete", key, map[string]any{})

	select {
	case <-killed:
	case <-time.After(20 * time.Second):
		t.Fatal("not killed: no delivery started")
	}

	p = startProc(t, bin, dir, key)
	mu.Lock()
	running = p
	mu.Unlock()
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(ids) >= 2
	}, 30*time.Second, 20*time.Millisecond, "not delivered after the restart")
	mu.Lock()
	require.Equal(t, ids[0], ids[1], "the same event, redelivered")
	mu.Unlock()
	status, list := p.gw.get(t, "/v1/webhook-endpoints/"+ep["id"].(string)+"/deliveries", key)
	require.Equal(t, 200, status)
	as := list["data"].([]any)
	require.Len(t, as, 1, "the killed attempt was never recorded; the one after the restart was")
	require.Equal(t, "succeeded", as[0].(map[string]any)["status"])
}

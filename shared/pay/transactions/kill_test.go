package transactions

import (
	"bufio"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/testkit/apitest/crashtest"
)

// TestKill9RetriedRefund: a refund is sent and the server is killed with
// SIGKILL while it is in flight (after 0 to 10 ms, so some rounds die before
// the write and some after it), then the server restarts on the same data
// and the client retries the refund with its Idempotency-Key until it gets
// an answer. Every key ends as exactly one refund: the refunded total and
// the refund records match the rounds, and the retry answers the same
// refund id as the first answer when there was one.
func TestKill9RetriedRefund(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a server")
	}
	bin := filepath.Join(t.TempDir(), "killserver")
	out, err := exec.Command("go", "build", "-o", bin, "./testdata/killserver").CombinedOutput()
	require.NoError(t, err, string(out))
	dataDir := t.TempDir()
	const key = "sk_test_txkill0123456789abcdefghijklmnop"
	do := crashtest.Client{Key: key}.Do

	base, kill := startKillServer(t, bin, dataDir, key)
	st, m, err := do(base, "POST", "/v2/payments", map[string]any{
		"amount": map[string]any{"value": 10000, "currency": "EUR"}, "reference": "kill-1", "returnUrl": "https://shop.example.com/r",
		"paymentMethod": map[string]any{"type": "scheme", "encryptedCardNumber": "test_4111111111111111", "encryptedExpiryMonth": "test_03",
			"encryptedExpiryYear": "test_2030", "encryptedSecurityCode": "test_737"}}, "pay-1")
	require.NoError(t, err)
	require.Equal(t, 200, st, "%v", m)
	require.Equal(t, "Authorised", m["resultCode"])
	id := m["pspReference"].(string) // captured with its authorisation (automatic capture)

	const rounds = 6
	answeredBeforeKill := 0
	for round := range rounds {
		idem := fmt.Sprintf("refund-%d", round)
		body := map[string]any{"amount": 1000, "reason": "kill test"}
		var first map[string]any
		var wg sync.WaitGroup
		wg.Go(func() {
			if st, m, err := do(base, "POST", "/v1/transactions/"+id+"/refund", body, idem); err == nil && st == 200 {
				first = m
			}
		})
		time.Sleep(time.Duration(round*2) * time.Millisecond)
		kill()
		wg.Wait()
		base, kill = startKillServer(t, bin, dataDir, key)
		var again map[string]any
		for try := 0; ; try++ {
			st, m, err := do(base, "POST", "/v1/transactions/"+id+"/refund", body, idem)
			require.NoError(t, err)
			if st == 200 {
				again = m
				break
			}
			require.Less(t, try, 20, "the retry keeps failing: %d %v", st, m)
			time.Sleep(50 * time.Millisecond)
		}
		if first != nil {
			answeredBeforeKill++
			assert.Equal(t, first["id"], again["id"], "round %d: the retry replays the first refund", round)
		}
	}
	t.Logf("%d of %d refunds were answered before the kill", answeredBeforeKill, rounds)

	st, m, err = do(base, "GET", "/v1/transactions/"+id, nil, "")
	require.NoError(t, err)
	require.Equal(t, 200, st)
	assert.EqualValues(t, rounds*1000, m["refunded_amount"], "one refund per key")
	assert.Equal(t, "partially_refunded", m["status"])
	st, m, err = do(base, "GET", "/v1/transactions?type=refund&limit=100", nil, "")
	require.NoError(t, err)
	require.Equal(t, 200, st)
	assert.Len(t, m["data"], rounds, "one refund record per key")
}

// startKillServer runs the server binary and returns its base URL and a
// function that kills it with SIGKILL.
func startKillServer(t *testing.T, bin, dataDir, key string) (string, func()) {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = append(cmd.Environ(), "DATA_DIR="+dataDir, "SANDBOX_API_KEY="+key)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var once sync.Once
	kill := func() {
		once.Do(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
	}
	t.Cleanup(kill)
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if addr, ok := strings.CutPrefix(sc.Text(), "LISTEN "); ok {
				lines <- addr
			}
		}
	}()
	select {
	case addr := <-lines:
		return "http://" + addr, kill
	case <-time.After(30 * time.Second):
		t.Fatal("server did not start")
		return "", nil
	}
}

package wallet

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/sandbox/walletprovider"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/testkit/apitest/crashtest"
)

// TestKill9WhileProcessing: the server (wallet routes, confirmation worker,
// expirer) is killed with SIGKILL during a burst of authorisations, while
// transactions are PROCESSING, and restarted on the same data. Every
// transaction, acknowledged or not, still reaches SUCCESS or FAILED: the
// delayed approvals through their durable queue messages, the unanswered
// ones through the expirer (its timeout shortened to 4 s for the test).
func TestKill9WhileProcessing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a server")
	}
	bin := crashtest.Build(t, "./testdata/killserver")
	dataDir := t.TempDir()
	const key = "sk_test_walletkill0123456789abcdefghijk"
	do := crashtest.Client{Key: key}.Do
	statuses := func(base string) map[string]string {
		out := map[string]string{}
		cursor := ""
		for {
			path := "/v1/wallet/transactions?limit=100"
			if cursor != "" {
				path += "&cursor=" + cursor
			}
			st, m, err := do(base, "GET", path, nil, "")
			require.NoError(t, err)
			require.Equal(t, 200, st, "%v", m)
			for _, it := range m["data"].([]any) {
				tx := it.(map[string]any)
				out[tx["walletTransactionId"].(string)] = tx["walletTransactionStatus"].(string)
			}
			if m["has_more"] != true {
				return out
			}
			cursor = m["next_cursor"].(string)
		}
	}

	base, kill := startKillServer(t, bin, dataDir, key)
	phones := []string{walletprovider.PhoneApproveLater, walletprovider.PhoneNoAnswer, walletprovider.PhoneApprove, phoneWaits}
	var mu sync.Mutex
	acked := map[string]bool{}
	var wg sync.WaitGroup
	done := make(chan struct{})
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				b := body(phones[(w+i)%len(phones)], 1000)
				b["orderReference"] = fmt.Sprintf("w%d-%d", w, i)
				st, m, err := do(base, "POST", "/v1/wallet/authorize", b, fmt.Sprintf("burst-%d-%d", w, i))
				if err != nil {
					continue // the server died under this request
				}
				if st == 200 {
					mu.Lock()
					acked[m["walletTransactionId"].(string)] = true
					mu.Unlock()
				}
			}
		})
	}
	time.Sleep(700 * time.Millisecond)
	processing := 0
	for _, s := range statuses(base) {
		if s == "PROCESSING" {
			processing++
		}
	}
	kill()
	close(done)
	wg.Wait()
	t.Logf("%d authorisations acknowledged before the kill; %d transactions PROCESSING just before it", len(acked), processing)
	require.NotZero(t, processing, "the kill must find transactions PROCESSING")

	base, _ = startKillServer(t, bin, dataDir, key)
	deadline := time.Now().Add(60 * time.Second)
	for {
		all := statuses(base)
		open := 0
		for id, s := range all {
			if s != "SUCCESS" && s != "FAILED" {
				open++
			}
			delete(acked, id)
		}
		require.Empty(t, acked, "every acknowledged transaction survives the crash")
		if open == 0 {
			counts := map[string]int{}
			for _, s := range all {
				counts[s]++
			}
			t.Logf("after the restart all %d transactions are final: %v", len(all), counts)
			return
		}
		require.True(t, time.Now().Before(deadline), "%d transactions still open a minute after the restart", open)
		time.Sleep(250 * time.Millisecond)
	}
}

// startKillServer runs the server binary on dataDir and returns its base URL and a
// function that kills it with SIGKILL.
func startKillServer(t *testing.T, bin, dataDir, key string) (string, func()) {
	t.Helper()
	p := crashtest.Start(t, bin, map[string]string{"CONFIRM_TIMEOUT": "4s", "DATA_DIR": dataDir, "SANDBOX_API_KEY": key}, crashtest.Ready)
	return p.URL(), p.Kill
}

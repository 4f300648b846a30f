package queuetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/queue"
)

func testLongPollWakes(t *testing.T, q queue.Queue, name string) {
	const sendAfter = 500 * time.Millisecond
	go func() {
		time.Sleep(sendAfter)
		if _, err := q.Send(context.Background(), name, []byte(`{"v":"poll"}`), 0); err != nil {
			t.Errorf("Send: %v", err)
		}
	}()
	start := time.Now()
	receiveOne(t, q, name, 30*time.Second, 15*time.Second)
	// It must wake on the send, not wait out its 15 s: the bound is about
	// behaviour, with room for a loaded machine, not a latency target.
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Fatalf("long poll returned %s after start: it waited out the wait instead of waking on the send at %s", elapsed, sendAfter)
	}
}

func testLongPollTimeout(t *testing.T, q queue.Queue, name string) {
	start := time.Now()
	receiveNone(t, q, name, time.Second)
	// At least the wait; and it does end (no hang).
	if elapsed := time.Since(start); elapsed < 900*time.Millisecond || elapsed > 10*time.Second {
		t.Fatalf("empty long poll of 1 s took %s", elapsed)
	}
}

func testContextCancel(t *testing.T, q queue.Queue, name string) {
	c, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	msgs, err := q.Receive(c, name, 1, 30*time.Second, 15*time.Second)
	if !errors.Is(err, context.DeadlineExceeded) || len(msgs) != 0 {
		t.Fatalf("Receive on a cancelled context: got %d messages, %v; want DeadlineExceeded", len(msgs), err)
	}
	// It returns on the cancellation, not at the end of its 15 s wait.
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Fatalf("cancelled long poll returned after %s", elapsed)
	}
}

// testConcurrentConsumers: 10 consumers that delete promptly share 200
// messages; each must be processed exactly once (at least once if
// atLeastOnce). Messages are told apart by body: on SQS a send whose answer
// was lost is retried by the SDK and can store the body twice under two
// ids, which at-least-once delivery allows (the second id is then a
// duplicate delivery of that body, not a stranger).
func testConcurrentConsumers(t *testing.T, q queue.Queue, name string, atLeastOnce bool) {
	const messages, workers = 200, 10
	c := ctx(t)
	sent := sendMany(t, q, name, messages, workers)
	sentBodies := make(map[string]bool, len(sent))
	for _, body := range sent {
		sentBodies[body] = true
	}

	var (
		mu        sync.Mutex
		seen      = map[string]int{} // body -> deliveries
		processed atomic.Int64
		wg        sync.WaitGroup
	)
	deadline := time.Now().Add(40 * time.Second)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for processed.Load() < messages && time.Now().Before(deadline) {
				msgs, err := q.Receive(c, name, 10, 30*time.Second, time.Second)
				if err != nil {
					t.Errorf("Receive: %v", err)
					return
				}
				for _, m := range msgs {
					body := string(m.Body)
					_, known := sent[m.ID]
					if !sentBodies[body] || (!known && !atLeastOnce) {
						t.Errorf("message %s: body %q was never sent (sent under this id: %q)", m.ID, body, sent[m.ID])
					}
					mu.Lock()
					seen[body]++
					n := seen[body]
					mu.Unlock()
					if n > 1 && !atLeastOnce {
						t.Errorf("message %s delivered %d times inside its visibility timeout", m.ID, n)
					}
					err := q.Delete(c, name, m.Receipt)
					if n > 1 {
						staleOrNilErr(t, "Delete of a duplicate", err)
						continue
					}
					// At-least-once (SQS): a receipt goes stale when another
					// consumer received the message again; that consumer then
					// deletes it. receiveNone below proves none is left over.
					if err != nil && !(atLeastOnce && errors.Is(err, queue.ErrStaleReceipt)) {
						t.Errorf("Delete: %v", err)
					}
					processed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if len(seen) != messages {
		t.Fatalf("processed %d distinct messages, want %d", len(seen), messages)
	}
	duplicates := 0
	for body := range sentBodies {
		if seen[body] == 0 || (seen[body] > 1 && !atLeastOnce) {
			t.Fatalf("message %s processed %d times", body, seen[body])
		}
		duplicates += seen[body] - 1
	}
	if duplicates > 0 {
		t.Logf("%d duplicate deliveries (allowed: at-least-once)", duplicates)
	}
	receiveNone(t, q, name, 0)
}

// sendMany sends n numbered bodies from several goroutines; id -> body.
func sendMany(t *testing.T, q queue.Queue, name string, n, senders int) map[string]string {
	t.Helper()
	var (
		mu   sync.Mutex
		sent = make(map[string]string, n)
		wg   sync.WaitGroup
		next atomic.Int64
	)
	for range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				body := fmt.Sprintf(`{"n":%d}`, i)
				id, err := q.Send(context.Background(), name, []byte(body), 0)
				if err != nil {
					t.Errorf("Send: %v", err)
					return
				}
				mu.Lock()
				sent[id] = body
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(sent) != n {
		t.Fatalf("sent %d distinct ids, want %d", len(sent), n)
	}
	return sent
}

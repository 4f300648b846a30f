// Package queuetest is the contract suite of the queue port: every adapter
// runs Run (or RunWith) and so shows the same SQS semantics. Where AWS
// documents a looser behaviour than boltqueue offers (stale receipts that SQS
// accepts silently), the suite accepts both and adapter tests check the
// stricter one.
package queuetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/queue"
)

// Run runs the contract suite. newQueue returns a queue and a logical name
// in it that is empty and used by no other test; its DLQ,
// queue.DLQName(name), must be reachable through the same queue. Subtests
// run concurrently, each on its own queue, with visibility timeouts of 1-2 s
// (SQS counts whole seconds).
func Run(t *testing.T, newQueue func(t *testing.T) (q queue.Queue, name string)) {
	RunWith(t, newQueue, Options{})
}

// Options loosen the suite only where the service behind an adapter is
// documented to be looser than the port's ideal.
type Options struct {
	// AtLeastOnce: SQS standard queues deliver at least once and may, rarely,
	// hand one message to two consumers inside its visibility timeout (moto,
	// racing concurrent receives, sometimes does). The concurrency test then
	// demands that every message is processed, not that it is processed once.
	AtLeastOnce bool
}

// RunWith is Run with options.
func RunWith(t *testing.T, newQueue func(t *testing.T) (q queue.Queue, name string), opts Options) {
	tests := []struct {
		name string
		fn   func(*testing.T, queue.Queue, string)
	}{
		{"SendReceiveDelete", testSendReceiveDelete},
		{"BodyRoundtrip", testBodyRoundtrip},
		{"InvalidRequests", testInvalid},
		{"HiddenDuringVisibility", testVisibility},
		{"ChangeVisibility", testChangeVisibility},
		{"DeleteAcks", testDeleteAcks},
		{"StaleReceipts", testStaleReceipts},
		{"Delay", testDelay},
		{"BatchLimit", testBatchLimit},
		{"DeadLetterAfterMaxReceives", testDeadLetter},
		{"LongPollWakesOnSend", testLongPollWakes},
		{"LongPollTimesOut", testLongPollTimeout},
		{"ContextCancelsLongPoll", testContextCancel},
		{"ConcurrentConsumers", func(t *testing.T, q queue.Queue, name string) {
			testConcurrentConsumers(t, q, name, opts.AtLeastOnce)
		}},
	}
	// The subtests mostly wait on timeouts, so they all run at once rather
	// than t.Parallel's GOMAXPROCS at a time (t.Run may be called from
	// several goroutines).
	var wg sync.WaitGroup
	for _, tc := range tests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(tc.name, func(t *testing.T) {
				q, name := newQueue(t)
				tc.fn(t, q, name)
			})
		}()
	}
	wg.Wait()
}

// ctx bounds each test so a hung adapter fails instead of stalling CI.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

func send(t *testing.T, q queue.Queue, name string, body string, delay time.Duration) string {
	t.Helper()
	id, err := q.Send(ctx(t), name, []byte(body), delay)
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	if id == "" {
		t.Fatal("Send returned an empty id")
	}
	return id
}

// receiveOne waits up to wait for exactly one message.
func receiveOne(t *testing.T, q queue.Queue, name string, visibility, wait time.Duration) queue.Message {
	t.Helper()
	msgs, err := q.Receive(ctx(t), name, 1, visibility, wait)
	if err != nil {
		t.Fatalf("Receive: %v", err)
	}
	if len(msgs) != 1 {
		t.Fatalf("Receive got %d messages, want 1", len(msgs))
	}
	return msgs[0]
}

// receiveNone checks that nothing is visible within wait.
func receiveNone(t *testing.T, q queue.Queue, name string, wait time.Duration) {
	t.Helper()
	msgs, err := q.Receive(ctx(t), name, 10, 30*time.Second, wait)
	if err != nil {
		t.Fatalf("Receive: %v", err)
	}
	if len(msgs) != 0 {
		t.Fatalf("Receive got %d messages (first %q, count %d), want none", len(msgs), msgs[0].Body, msgs[0].ReceiveCount)
	}
}

// staleOrNil accepts the two answers SQS may give for a receipt that is no
// longer current: AWS documents that such a DeleteMessage can succeed.
func staleOrNil(t *testing.T, op string, err error) {
	t.Helper()
	if err != nil && !errors.Is(err, queue.ErrStaleReceipt) {
		t.Fatalf("%s: got %v, want nil or ErrStaleReceipt", op, err)
	}
}

// staleOrNilErr is staleOrNil for goroutines other than the test's own.
func staleOrNilErr(t *testing.T, op string, err error) {
	t.Helper()
	if err != nil && !errors.Is(err, queue.ErrStaleReceipt) {
		t.Errorf("%s: got %v, want nil or ErrStaleReceipt", op, err)
	}
}

func wantErr(t *testing.T, op string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: got %v, want %v", op, err, want)
	}
}

package boltqueue_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/queue/boltqueue"
	"github.com/paygate/paygate/shared/testkit/queuetest"
)

func TestContract(t *testing.T) {
	queuetest.Run(t, func(t *testing.T) (queue.Queue, string) {
		return open(t, filepath.Join(t.TempDir(), "queue.db"), nil), "contract"
	})
}

func open(t *testing.T, path string, clock func() time.Time) *boltqueue.Queue {
	t.Helper()
	q, err := boltqueue.Open(path, clock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = q.Close() }) // a second Close after a test's own is harmless
	return q
}

// fakeClock is a test clock moved by hand, so time-based behaviour is
// checked without sleeping.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *fakeClock { return &fakeClock{now: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func receive(t *testing.T, q *boltqueue.Queue, name string, visibility time.Duration) []queue.Message {
	t.Helper()
	msgs, err := q.Receive(context.Background(), name, 10, visibility, 0)
	if err != nil {
		t.Fatalf("Receive: %v", err)
	}
	return msgs
}

func TestDurableAcrossReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "queue.db")
	clock := newClock()
	q := open(t, path, clock.Now)
	kept, err := q.Send(ctx, "jobs", []byte(`{"k":"kept"}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	gone, err := q.Send(ctx, "jobs", []byte(`{"k":"gone"}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	delayed, err := q.Send(ctx, "jobs", []byte(`{"k":"later"}`), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	msgs := receive(t, q, "jobs", 10*time.Second)
	if len(msgs) != 2 {
		t.Fatalf("got %d messages, want the 2 undelayed ones", len(msgs))
	}
	for _, m := range msgs {
		if m.ID == gone {
			if err := q.Delete(ctx, "jobs", m.Receipt); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}

	q = open(t, path, clock.Now)
	if got := receive(t, q, "jobs", 10*time.Second); len(got) != 0 {
		t.Fatalf("after reopen got %d messages inside the visibility timeout", len(got))
	}
	clock.Advance(11 * time.Second)
	got := receive(t, q, "jobs", 10*time.Second)
	if len(got) != 1 || got[0].ID != kept || got[0].ReceiveCount != 2 || string(got[0].Body) != `{"k":"kept"}` {
		t.Fatalf("after reopen and expiry got %+v, want %s redelivered with count 2", got, kept)
	}
	clock.Advance(time.Minute)
	got = receive(t, q, "jobs", 10*time.Second)
	if len(got) != 2 {
		t.Fatalf("got %d messages, want the redelivered and the delayed one", len(got))
	}
	ids := map[string]bool{got[0].ID: true, got[1].ID: true}
	if !ids[kept] || !ids[delayed] {
		t.Fatalf("got %v, want %s and %s", ids, kept, delayed)
	}
	// The receipt survives a reopen too.
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	q = open(t, path, clock.Now)
	for _, m := range got {
		if err := q.Delete(ctx, "jobs", m.Receipt); err != nil {
			t.Fatalf("Delete after reopen: %v", err)
		}
	}
	clock.Advance(time.Hour)
	if got := receive(t, q, "jobs", time.Second); len(got) != 0 {
		t.Fatalf("deleted messages came back: %+v", got)
	}
}

// SQS may accept an old receipt silently; this adapter always refuses it and
// keeps the message, which the contract suite cannot demand of SQS.
func TestStaleReceiptIsRefused(t *testing.T) {
	ctx := context.Background()
	clock := newClock()
	q := open(t, filepath.Join(t.TempDir(), "queue.db"), clock.Now)
	if _, err := q.Send(ctx, "jobs", []byte(`{}`), 0); err != nil {
		t.Fatal(err)
	}
	first := receive(t, q, "jobs", time.Second)[0]
	clock.Advance(2 * time.Second)
	second := receive(t, q, "jobs", time.Second)[0]
	for _, err := range []error{
		q.Delete(ctx, "jobs", first.Receipt),
		q.ChangeVisibility(ctx, "jobs", first.Receipt, 0),
		q.Delete(ctx, "other", second.Receipt),
	} {
		if !errors.Is(err, queue.ErrStaleReceipt) {
			t.Fatalf("got %v, want ErrStaleReceipt", err)
		}
	}
	// A current receipt still works after its timeout if nobody received
	// the message since, as in SQS.
	clock.Advance(2 * time.Second)
	if err := q.Delete(ctx, "jobs", second.Receipt); err != nil {
		t.Fatalf("Delete with the latest receipt: %v", err)
	}
	if err := q.Delete(ctx, "jobs", second.Receipt); !errors.Is(err, queue.ErrStaleReceipt) {
		t.Fatalf("second Delete: got %v, want ErrStaleReceipt", err)
	}
}

func TestRedriveOnTheReceiveAfterMax(t *testing.T) {
	ctx := context.Background()
	clock := newClock()
	q := open(t, filepath.Join(t.TempDir(), "queue.db"), clock.Now)
	id, err := q.Send(ctx, "jobs", []byte(`{}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= queue.MaxReceives; i++ {
		got := receive(t, q, "jobs", time.Second)
		if len(got) != 1 || got[0].ReceiveCount != i {
			t.Fatalf("receive %d: got %+v", i, got)
		}
		clock.Advance(2 * time.Second)
	}
	if got := receive(t, q, "jobs", time.Second); len(got) != 0 {
		t.Fatalf("receive %d delivered %+v instead of moving it to the DLQ", queue.MaxReceives+1, got)
	}
	dlq := queue.DLQName("jobs")
	// A DLQ has no DLQ: its messages are never moved on.
	for range 2 * queue.MaxReceives {
		got := receive(t, q, dlq, time.Second)
		if len(got) != 1 || got[0].ID != id {
			t.Fatalf("DLQ: got %+v, want %s", got, id)
		}
		clock.Advance(2 * time.Second)
	}
}

func TestLongPollSeesClockAdvance(t *testing.T) {
	ctx := context.Background()
	clock := newClock()
	q := open(t, filepath.Join(t.TempDir(), "queue.db"), clock.Now)
	if _, err := q.Send(ctx, "jobs", []byte(`{}`), time.Minute); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(200 * time.Millisecond)
		clock.Advance(time.Minute)
	}()
	msgs, err := q.Receive(ctx, "jobs", 1, time.Second, 5*time.Second)
	if err != nil || len(msgs) != 1 {
		t.Fatalf("got %d messages, %v; want the delayed one once the clock passed its delay", len(msgs), err)
	}
}

func TestCloseEndsLongPoll(t *testing.T) {
	q := open(t, filepath.Join(t.TempDir(), "queue.db"), nil)
	done := make(chan error, 1)
	go func() {
		_, err := q.Receive(context.Background(), "jobs", 1, time.Second, 20*time.Second)
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("long poll on a closed queue returned no error")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Close did not end the long poll")
	}
}

// At a restart, messages the crashed run had received come back at once,
// with their receive count and with the old receipts stale; a delayed
// message that nobody received keeps its delay.
func TestReleaseReceivedAfterACrash(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "q.db")
	clock := newClock()
	q := open(t, path, clock.Now)
	_, err := q.Send(ctx, "jobs", []byte("held"), 0)
	require.NoError(t, err)
	_, err = q.Send(ctx, "jobs", []byte("delayed"), 10*time.Minute)
	require.NoError(t, err)
	got, err := q.Receive(ctx, "jobs", 10, time.Hour, 0)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.NoError(t, q.Close()) // the crash: the receipt's holder is gone

	q = open(t, path, clock.Now)
	n, err := q.ReleaseReceived(ctx, "jobs")
	require.NoError(t, err)
	require.Equal(t, 1, n)
	again, err := q.Receive(ctx, "jobs", 10, time.Hour, 0)
	require.NoError(t, err)
	require.Len(t, again, 1, "only the held message; the delayed one still waits")
	require.Equal(t, "held", string(again[0].Body))
	require.Equal(t, 2, again[0].ReceiveCount)
	require.ErrorIs(t, q.Delete(ctx, "jobs", got[0].Receipt), queue.ErrStaleReceipt)
	n, err = q.ReleaseReceived(ctx, "other")
	require.NoError(t, err)
	require.Zero(t, n)
}

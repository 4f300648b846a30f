package queuetest

import (
	"testing"
	"time"

	"github.com/paygate/paygate/shared/queue"
)

func testVisibility(t *testing.T, q queue.Queue, name string) {
	id := send(t, q, name, `{"v":1}`, 0)
	// Taken before the call: the server hides the message after this, so
	// the redelivery cannot come sooner than a second after it.
	hiddenBy := time.Now()
	first := receiveOne(t, q, name, time.Second, 2*time.Second)
	receiveNone(t, q, name, 0)
	again := receiveOne(t, q, name, 30*time.Second, 4*time.Second)
	if elapsed := time.Since(hiddenBy); elapsed < 900*time.Millisecond {
		t.Fatalf("redelivered after %s, inside the 1 s visibility timeout", elapsed)
	}
	if again.ID != id || again.ReceiveCount != 2 || again.Receipt == first.Receipt {
		t.Fatalf("redelivery %+v: want id %s, count 2 and a new receipt", again, id)
	}
}

func testChangeVisibility(t *testing.T, q queue.Queue, name string) {
	send(t, q, name, `{"v":2}`, 0)
	m := receiveOne(t, q, name, time.Second, 2*time.Second)
	// Extending keeps it hidden past the original 1 s.
	if err := q.ChangeVisibility(ctx(t), name, m.Receipt, 30*time.Second); err != nil {
		t.Fatalf("ChangeVisibility(30s): %v", err)
	}
	receiveNone(t, q, name, 1500*time.Millisecond)
	// 0 releases it at once: how a consumer hands a message back.
	if err := q.ChangeVisibility(ctx(t), name, m.Receipt, 0); err != nil {
		t.Fatalf("ChangeVisibility(0): %v", err)
	}
	// Without the release it would stay hidden for 30 s: receiving it within
	// a far shorter wait is the proof, with no timing of its own to flake.
	again := receiveOne(t, q, name, 30*time.Second, 10*time.Second)
	if again.ID != m.ID || again.ReceiveCount != 2 {
		t.Fatalf("after release got %+v, want %s with count 2", again, m.ID)
	}
}

func testDeleteAcks(t *testing.T, q queue.Queue, name string) {
	send(t, q, name, `{"v":3}`, 0)
	m := receiveOne(t, q, name, time.Second, 2*time.Second)
	if err := q.Delete(ctx(t), name, m.Receipt); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	// Past the visibility timeout it must still be gone.
	receiveNone(t, q, name, 2*time.Second)
}

func testStaleReceipts(t *testing.T, q queue.Queue, name string) {
	wantErr(t, "Delete unknown receipt", q.Delete(ctx(t), name, "no-such-receipt"), queue.ErrStaleReceipt)
	wantErr(t, "ChangeVisibility unknown receipt", q.ChangeVisibility(ctx(t), name, "no-such-receipt", 0), queue.ErrStaleReceipt)

	send(t, q, name, `{"v":4}`, 0)
	first := receiveOne(t, q, name, time.Second, 2*time.Second)
	second := receiveOne(t, q, name, 30*time.Second, 4*time.Second)
	if second.ID != first.ID || second.Receipt == first.Receipt {
		t.Fatalf("redelivery %+v after %+v: want same id, new receipt", second, first)
	}
	// AWS: deleting with an old receipt may succeed without deleting.
	staleOrNil(t, "Delete with the receipt of an earlier receive", q.Delete(ctx(t), name, first.Receipt))
	if err := q.Delete(ctx(t), name, second.Receipt); err != nil {
		t.Fatalf("Delete with the current receipt: %v", err)
	}
	staleOrNil(t, "Delete twice", q.Delete(ctx(t), name, second.Receipt))
	receiveNone(t, q, name, 0)
}

func testDelay(t *testing.T, q queue.Queue, name string) {
	sent := time.Now()
	id := send(t, q, name, `{"v":5}`, time.Second)
	receiveNone(t, q, name, 0)
	m := receiveOne(t, q, name, 30*time.Second, 4*time.Second)
	if elapsed := time.Since(sent); elapsed < 900*time.Millisecond {
		t.Fatalf("delayed message delivered after %s, want >= 1 s", elapsed)
	}
	if m.ID != id || m.ReceiveCount != 1 {
		t.Fatalf("got %+v, want %s with count 1", m, id)
	}
}

func testDeadLetter(t *testing.T, q queue.Queue, name string) {
	id := send(t, q, name, `{"v":"dlq"}`, 0)
	for i := 1; i <= queue.MaxReceives; i++ {
		m := receiveOne(t, q, name, 30*time.Second, 3*time.Second)
		if m.ID != id || m.ReceiveCount != i {
			t.Fatalf("receive %d: got %+v, want %s with count %d", i, m, id, i)
		}
		// Release at once instead of waiting out the timeout: a consumer
		// that keeps failing.
		if err := q.ChangeVisibility(ctx(t), name, m.Receipt, 0); err != nil {
			t.Fatalf("ChangeVisibility(0): %v", err)
		}
	}
	receiveNone(t, q, name, time.Second)
	dead := receiveOne(t, q, queue.DLQName(name), 30*time.Second, 4*time.Second)
	if dead.ID != id || string(dead.Body) != `{"v":"dlq"}` || dead.ReceiveCount < 1 {
		t.Fatalf("DLQ got %+v, want message %s with its body", dead, id)
	}
	if err := q.Delete(ctx(t), queue.DLQName(name), dead.Receipt); err != nil {
		t.Fatalf("Delete from DLQ: %v", err)
	}
}

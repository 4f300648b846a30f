// Package boltqueue is the embedded, durable adapter of the queue port: one
// bbolt file holds every logical queue and its dead-letter queue, with SQS
// semantics (visibility timeout, delay, receive count, redrive to
// queue.DLQName after queue.MaxReceives receives).
package boltqueue

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/paygate/paygate/shared/queue"
)

// pollCap bounds how long a long poll sleeps between checks, so that a test
// clock moved forward (not a real timer) is still noticed promptly.
const pollCap = 100 * time.Millisecond

var (
	msgsBucket  = []byte("m") // id -> record
	indexBucket = []byte("v") // visibleAt|id -> nothing
)

// Queue implements queue.Queue on a bbolt file.
type Queue struct {
	db    *bolt.DB
	clock func() time.Time

	mu      sync.Mutex
	changed chan struct{} // closed and replaced whenever a message may have become visible
	closed  chan struct{}
	once    sync.Once
}

var _ queue.Queue = (*Queue)(nil)

// Open opens (creating if needed) the queue file at path. clock gives the
// time used for visibility and delay (nil means time.Now); long-poll waits
// are always measured in real time.
func Open(path string, clock func() time.Time) (*Queue, error) {
	if clock == nil {
		clock = time.Now
	}
	// The timeout turns a second process on the same file into an error
	// instead of a hang on bolt's file lock.
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("boltqueue: open %s: %w", path, err)
	}
	// Sends go through bbolt's Batch: concurrent sends share one commit and
	// its fsyncs (a send's function only puts its own message under its own
	// id, so running it again in another transaction, as Batch may, writes
	// the same). A lone send waits at most this long for company.
	db.MaxBatchDelay = sendBatchDelay
	return &Queue{db: db, clock: clock, changed: make(chan struct{}), closed: make(chan struct{})}, nil
}

// sendBatchDelay is how long a send waits for other sends to share its
// commit: under load the wait fills a batch; alone it costs this much.
const sendBatchDelay = time.Millisecond

// Close closes the file; pending long polls return an error.
func (q *Queue) Close() error {
	q.once.Do(func() { close(q.closed) })
	return q.db.Close()
}

// Send implements queue.Queue.
func (q *Queue) Send(ctx context.Context, name string, body []byte, delay time.Duration) (string, error) {
	if err := errors.Join(queue.CheckName(name), queue.CheckBody(body), queue.CheckDelay(delay)); err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	u, err := uuid.NewV7()
	if err != nil {
		return "", fmt.Errorf("boltqueue: message id: %w", err)
	}
	id := u.String()
	rec := record{visibleAt: q.clock().Add(ceilSeconds(delay)), body: body}
	err = q.db.Batch(func(tx *bolt.Tx) error {
		b, err := queueBucket(tx, name)
		if err != nil {
			return err
		}
		return put(b, id, rec)
	})
	if err != nil {
		return "", fmt.Errorf("boltqueue: send to %s: %w", name, err)
	}
	q.notify()
	return id, nil
}

// Receive implements queue.Queue.
func (q *Queue) Receive(ctx context.Context, name string, limit int, visibility, wait time.Duration) ([]queue.Message, error) {
	if err := errors.Join(queue.CheckName(name), queue.CheckReceive(limit, visibility, wait)); err != nil {
		return nil, err
	}
	visibility = ceilSeconds(visibility)
	deadline := time.Now().Add(wait)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Take the change channel before looking, so a send that lands
		// between the look and the wait still wakes us.
		changed := q.changedChan()
		msgs, next, err := q.receiveOnce(name, limit, visibility)
		if err != nil || len(msgs) > 0 {
			return msgs, err
		}
		remaining := time.Until(deadline)
		if remaining <= 0 {
			return nil, nil
		}
		sleep := min(remaining, pollCap)
		if !next.IsZero() {
			sleep = min(sleep, max(next.Sub(q.clock()), time.Millisecond))
		}
		timer := time.NewTimer(sleep)
		select {
		case <-changed:
		case <-timer.C:
		case <-ctx.Done():
		case <-q.closed:
			timer.Stop()
			return nil, fmt.Errorf("boltqueue: receive from %s: %w", name, berrors.ErrDatabaseNotOpen)
		}
		timer.Stop()
	}
}

// receiveOnce delivers up to limit visible messages, moving those received
// too often to the DLQ. With none delivered it also reports when the next
// message becomes visible (zero if the queue is empty).
func (q *Queue) receiveOnce(name string, limit int, visibility time.Duration) ([]queue.Message, time.Time, error) {
	var out []queue.Message
	var next time.Time
	var moved bool
	redrive := !strings.HasSuffix(name, queue.DLQName("")) // a DLQ has no DLQ of its own
	err := q.db.Update(func(tx *bolt.Tx) error {
		out, next, moved = nil, time.Time{}, false
		b, err := queueBucket(tx, name)
		if err != nil {
			return err
		}
		now := q.clock()
		for len(out) < limit {
			due := dueIDs(b, now, limit-len(out))
			if len(due) == 0 {
				break
			}
			for _, id := range due {
				rec, err := get(b, id)
				if err != nil {
					return err
				}
				if err := del(b, id, rec); err != nil {
					return err
				}
				if redrive && rec.count >= queue.MaxReceives {
					// SQS redrive: the receive that would exceed
					// maxReceiveCount moves the message instead.
					dlq, err := queueBucket(tx, queue.DLQName(name))
					if err != nil {
						return err
					}
					rec.visibleAt, rec.nonce = now, 0
					if err := put(dlq, id, rec); err != nil {
						return err
					}
					moved = true
					continue
				}
				rec.count++
				rec.nonce = rand.Uint64N(math.MaxUint64) + 1 // never 0: 0 means "no receipt"
				rec.visibleAt = now.Add(visibility)
				if err := put(b, id, rec); err != nil {
					return err
				}
				out = append(out, queue.Message{ID: id, Body: rec.body, Receipt: receipt(id, rec.nonce), ReceiveCount: int(rec.count)})
			}
		}
		if len(out) == 0 {
			if k, _ := b.Bucket(indexBucket).Cursor().First(); k != nil {
				next, _ = splitIndexKey(k)
			}
		}
		return nil
	})
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("boltqueue: receive from %s: %w", name, err)
	}
	if moved {
		q.notify() // wake DLQ readers
	}
	return out, next, nil
}

// Delete implements queue.Queue.
func (q *Queue) Delete(ctx context.Context, name, rcpt string) error {
	return q.withReceipt(ctx, "delete", name, rcpt, func(b *bolt.Bucket, id string, rec record) error {
		return del(b, id, rec)
	})
}

// ChangeVisibility implements queue.Queue.
func (q *Queue) ChangeVisibility(ctx context.Context, name, rcpt string, visibility time.Duration) error {
	if err := queue.CheckVisibility(visibility, true); err != nil {
		return err
	}
	err := q.withReceipt(ctx, "change visibility", name, rcpt, func(b *bolt.Bucket, id string, rec record) error {
		if err := del(b, id, rec); err != nil {
			return err
		}
		rec.visibleAt = q.clock().Add(ceilSeconds(visibility))
		return put(b, id, rec)
	})
	if err == nil && visibility == 0 {
		q.notify()
	}
	return err
}

// withReceipt runs fn on the message named by a current receipt. A receipt
// is current until the message is received again or deleted; like SQS, it
// still works after the visibility timeout if nobody received it since.
func (q *Queue) withReceipt(ctx context.Context, op, name, rcpt string, fn func(*bolt.Bucket, string, record) error) error {
	if err := queue.CheckName(name); err != nil {
		return err
	}
	if rcpt == "" {
		return fmt.Errorf("%w: empty receipt", queue.ErrInvalid)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	id, nonce, ok := parseReceipt(rcpt)
	if !ok {
		// SQS answers ReceiptHandleIsInvalid here too.
		return fmt.Errorf("boltqueue: %s on %s: %w", op, name, queue.ErrStaleReceipt)
	}
	err := q.db.Update(func(tx *bolt.Tx) error {
		b, err := queueBucket(tx, name)
		if err != nil {
			return err
		}
		if b.Bucket(msgsBucket).Get([]byte(id)) == nil {
			return queue.ErrStaleReceipt // deleted, or never existed
		}
		rec, err := get(b, id)
		if err != nil {
			return err
		}
		if rec.nonce != nonce {
			return queue.ErrStaleReceipt
		}
		return fn(b, id, rec)
	})
	if err != nil {
		return fmt.Errorf("boltqueue: %s on %s: %w", op, name, err)
	}
	return nil
}

func (q *Queue) changedChan() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.changed
}

// notify wakes every long poll; each re-checks its own queue.
func (q *Queue) notify() {
	q.mu.Lock()
	defer q.mu.Unlock()
	close(q.changed)
	q.changed = make(chan struct{})
}

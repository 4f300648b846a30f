package boltstore

import (
	"context"
	"errors"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/paygate/paygate/shared/store"
)

// Write applies ops all or nothing: every condition is checked before
// anything is written, so a failure leaves all items untouched.
//
// Group commit: concurrent writes share one bbolt transaction, and so one
// commit and its two fsyncs (the pages, then the meta page), which is what
// bounds an embedded store's write rate. Each write in a shared transaction
// is judged against the state its predecessors in the batch left, in the
// order they arrived, exactly as if they had committed one after another: a
// write whose condition fails writes nothing and fails alone, never its
// neighbours; a write answers only once the transaction holding it is
// durable. A write that arrives while no commit is running starts one at
// once (no waiting for company), so a lone writer costs what it did.
func (s *Store) Write(ctx context.Context, ops ...store.Op) error {
	wait, err := s.Submit(ctx, ops...)
	if err != nil {
		return err
	}
	return wait()
}

var _ store.Pipeliner = (*Store)(nil)

// Submit hands a write to the writer and returns the wait for its verdict
// (store.Pipeliner): writes submitted one after another are committed in
// that order, so a caller serialising writes on one item may release its
// lock once it has submitted. Once submitted the write may commit: wait
// gives the verdict whatever the context says, so a caller never reports a
// failure for a write that happened (a batch takes a few milliseconds).
func (s *Store) Submit(ctx context.Context, ops ...store.Op) (func() error, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ops, landed, err := store.AttachExtras(ctx, ops)
	if err != nil {
		return nil, err
	}
	if err := store.ValidateOps(ops); err != nil {
		return nil, landed(err)
	}
	req := &writeReq{ops: ops, now: s.clock(), done: make(chan error, 1)}
	if err := s.group.submit(req); err != nil {
		return nil, landed(err)
	}
	return func() error { return landed(<-req.done) }, nil
}

// writeReq is one Write waiting for its batch, or, with fn, another change
// of the file sharing the batch's commit (a feed's checkpoint).
type writeReq struct {
	ops  []store.Op
	now  time.Time
	done chan error
	// fn changes tx in place of ops: verdict is its own refusal (it changed
	// nothing; the transaction goes on), err a failure that aborts the
	// transaction. It may run more than once (a batch that fails is
	// retried one write at a time), so it only reads and writes tx.
	fn func(tx *bolt.Tx) (verdict, err error)
}

// maxBatch bounds the writes of one transaction, so one commit's latency
// stays that of a few hundred small writes.
const maxBatch = 256

// errClosed answers a write to a closed store.
var errClosed = errors.New("boltstore: store is closed")

// committer is the store's one writer goroutine: it takes the writes
// waiting (at least one, at most maxBatch) and commits them together.
type committer struct {
	mu      sync.RWMutex
	stopped bool
	reqs    chan *writeReq
	closed  chan struct{} // closed by stop
	done    chan struct{} // closed when the loop has returned

	commits, writes, checkpoints int64 // counted by the loop only; read via Stats after stop or racily for reports
	stats                        chan chan GroupStats
}

// GroupStats counts the group commit's work: Commits bbolt write
// transactions (each two fsyncs) for Writes store writes and Checkpoints
// change feed checkpoints.
type GroupStats struct {
	Commits     int64
	Writes      int64
	Checkpoints int64
}

func newCommitter() *committer {
	return &committer{reqs: make(chan *writeReq, maxBatch), closed: make(chan struct{}), done: make(chan struct{}),
		stats: make(chan chan GroupStats)}
}

func (c *committer) submit(r *writeReq) error {
	// The read lock orders every send before stop's close: once stop holds
	// the lock no write can enter the channel after the loop drained it.
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.stopped {
		return errClosed
	}
	c.reqs <- r // the loop keeps receiving until stop, so this never waits long
	return nil
}

// run is the writer loop: block for one write, take every other one
// already waiting, commit them as one transaction.
func (c *committer) run(s *Store) {
	defer close(c.done)
	batch := make([]*writeReq, 0, maxBatch)
	for {
		select {
		case r := <-c.reqs:
			batch = append(batch[:0], r)
		case out := <-c.stats:
			out <- GroupStats{Commits: c.commits, Writes: c.writes, Checkpoints: c.checkpoints}
			continue
		case <-c.closed:
			// Writes that made it into the channel before stop still
			// commit; submit refuses any after.
			for {
				select {
				case r := <-c.reqs:
					s.commit([]*writeReq{r})
				default:
					return
				}
			}
		}
	more:
		for len(batch) < maxBatch {
			select {
			case r := <-c.reqs:
				batch = append(batch, r)
			default:
				break more
			}
		}
		c.commits++
		for _, r := range batch {
			if r.fn != nil {
				c.checkpoints++
			} else {
				c.writes++
			}
		}
		s.commit(batch)
	}
}

func (c *committer) stop() {
	c.mu.Lock()
	if !c.stopped {
		c.stopped = true
		close(c.closed)
	}
	c.mu.Unlock()
	<-c.done
}

// GroupStats reports how many transactions committed how many writes so
// far (make bench's fsyncs per order: two per commit).
func (s *Store) GroupStats() GroupStats {
	out := make(chan GroupStats, 1)
	select {
	case s.group.stats <- out:
		return <-out
	case <-s.group.done:
		return GroupStats{Commits: s.group.commits, Writes: s.group.writes, Checkpoints: s.group.checkpoints}
	}
}

// commit writes batch in one transaction and answers each write. A failure
// of the transaction itself (not a condition: the disk, a corrupt value)
// aborts every write in it, so each is then run alone to give the failure
// to its own writer only.
func (s *Store) commit(batch []*writeReq) {
	verdicts := make([]error, len(batch))
	fed := map[string]bool{} // streamed tables the committed writes appended to
	err := s.db.Update(func(tx *bolt.Tx) error {
		for i, r := range batch {
			var verdict, err error
			if r.fn != nil {
				verdict, err = r.fn(tx)
			} else {
				verdict, err = writeTx(tx, r.ops, r.now, fed)
			}
			if err != nil {
				return err
			}
			verdicts[i] = verdict
		}
		return nil
	})
	if err != nil {
		if len(batch) == 1 {
			batch[0].done <- err
			return
		}
		for _, r := range batch {
			s.commit([]*writeReq{r})
		}
		return
	}
	for t := range fed {
		s.notify[t].broadcast()
	}
	for i, r := range batch {
		r.done <- verdicts[i]
	}
}

// writeTx applies one write's ops inside tx. The verdict is the write's own
// failed condition or bound (nothing of it written; the transaction goes
// on); err is a failure that must abort the whole transaction.
func writeTx(tx *bolt.Tx, ops []store.Op, now time.Time, fed map[string]bool) (verdict, err error) {
	// raw holds each op's stored item, expired or not: versions continue
	// across expiry, as they do in DynamoDB.
	raw := make([]*store.Item, len(ops))
	for i, op := range ops {
		b, err := bucket(tx, op.Item.Table)
		if err != nil {
			return err, nil // an unknown table: this write's error alone
		}
		if raw[i], err = loadRaw(b, op.Item.Key); err != nil {
			return nil, err
		}
		live := raw[i]
		if live != nil && live.Expired(now) {
			live = nil
		}
		switch store.Judge(op, live) {
		case store.CondFails:
			return &store.ConditionFailedError{Index: i, Current: live}, nil
		case store.OutOfBound:
			return store.OutOfRange(i, op.Item.Key), nil
		}
	}
	for i, op := range ops {
		next, err := apply(tx, op, raw[i], now)
		if err != nil {
			return nil, err
		}
		if kind, ok := change(op, raw[i]); ok {
			// In the same transaction: the feed holds exactly what was
			// committed (see feed.go).
			if err := appendChange(tx, kind, next, now); err != nil {
				return nil, err
			}
			fed[op.Item.Table] = true
		}
	}
	return nil, nil
}

// change is the feed record op makes over raw (the item as stored before,
// expired or not, as DynamoDB Streams see it): none for a check, a delete of
// nothing, or a table that is not streamed.
func change(op store.Op, raw *store.Item) (store.ChangeKind, bool) {
	if !store.Streamed(op.Item.Table) {
		return "", false
	}
	switch {
	case op.Kind == store.OpCheck:
		return "", false
	case op.Kind == store.OpDelete && raw == nil:
		return "", false
	case op.Kind == store.OpDelete:
		return store.ChangeRemove, true
	case raw == nil:
		return store.ChangeInsert, true
	}
	return store.ChangeModify, true
}

// apply runs op and returns the item as written (only the key for a delete).
func apply(tx *bolt.Tx, op store.Op, raw *store.Item, now time.Time) (store.Item, error) {
	b, err := bucket(tx, op.Item.Table)
	if err != nil {
		return store.Item{}, err
	}
	key, err := encodeKey(op.Item.PK, op.Item.SK)
	if err != nil {
		return store.Item{}, err
	}
	var version int64
	if raw != nil {
		version = raw.Version
	}
	var next store.Item
	switch op.Kind {
	case store.OpCheck:
		return store.Item{Key: op.Item.Key}, nil
	case store.OpDelete:
		return store.Item{Key: op.Item.Key}, b.Delete(key)
	case store.OpPut:
		next = op.Item
	case store.OpAdd:
		// An expired item counts as absent: the counter starts again.
		if raw != nil && !raw.Expired(now) {
			next = *raw
		} else {
			next = store.Item{Key: op.Item.Key}
		}
		next.N += op.Delta // store.Judge ruled out overflow
		if op.Item.Data != nil {
			next.Data = op.Item.Data
			next.ExpiresAt = op.Item.ExpiresAt
		}
	}
	next.Version = version + 1
	return next, b.Put(key, encodeValue(next))
}

package dynamostore

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/paygate/paygate/shared/store"
)

// Combining (store.Pipeliner): writes handed over with Submit that touch the
// same versioned counter (an order's debit of its balance) form a lane. A
// lane has at most one TransactWriteItems in flight; the writes that arrive
// meanwhile wait, and the next call carries as many of them as fit in one
// transaction (100 items), in hand-over order:
//
//   - their conditional adds to the lane's counter become one add: the sum of
//     the deltas, under the first one's version condition, moving the version
//     on by the number of adds, so each write's own condition (the version
//     the previous one leaves) is implied by the first's;
//   - identical checks of one item (the product's version) become one check;
//   - every other item (idempotency records, orders, index entries) is its own.
//
// A combined call is all or nothing, as each write is. If it fails (a
// condition, a conflict it could not outwait, an error), the writes it held
// are run again one by one in order, each judged alone by Write, so a failing
// condition fails only its own caller, and the writes built on its predicted
// outcome fail their version conditions and re-read, as on the embedded
// store. A lone writer's call starts at once, without waiting for company.
//
// What it buys: a hot balance's orders cost one round trip per batch instead
// of one each (issue 17). It works within one process (the local gateway, a
// test, a long-running worker); a Lambda instance serves one request at a
// time, so there each batch holds one write (docs/benchmarks.md, hot balance).

var _ store.Pipeliner = (*Store)(nil)

// maxCombinedWrites bounds the writes of one combined call besides the
// 100-item limit (an order is three items of its own: about 33 fit).
const maxCombinedWrites = 64

// Submit hands a write over (store.Pipeliner): writes submitted one after
// another on the same versioned counter commit in that order; the verdict is
// Write's and is given whatever the context says once submitted.
func (s *Store) Submit(ctx context.Context, ops ...store.Op) (func() error, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The write's extras (store.WithExtras) become its own items here, and
	// its later runs (a batch, or alone after a failed batch) carry them
	// from req.ops, never from the context again.
	ops, landed, err := store.AttachExtras(ctx, ops)
	if err != nil {
		return nil, err
	}
	if err := store.ValidateOps(ops); err != nil {
		return nil, landed(err)
	}
	req := &combineReq{ctx: store.WithoutExtras(context.WithoutCancel(ctx)), ops: ops, done: make(chan error, 1), landed: landed}
	lane, ok := laneKey(ops)
	if !ok {
		go func() { req.done <- s.writeBounded(req.ctx, ops) }()
		return req.wait, nil
	}
	s.lanes.submit(s, lane, req)
	return req.wait, nil
}

// CombineStats counts combined calls and the writes they carried (for the
// benchmark's writes per call).
type CombineStats struct{ Calls, Writes, Fallbacks int64 }

// CombineStats reports the combining counters so far.
func (s *Store) CombineStats() CombineStats {
	s.lanes.mu.Lock()
	defer s.lanes.mu.Unlock()
	return s.lanes.stats
}

type combineReq struct {
	ctx    context.Context
	ops    []store.Op
	done   chan error
	landed func(error) error // the write's extras' verdict (store.AttachExtras)
}

func (r *combineReq) wait() error { return r.landed(<-r.done) }

// laneKey is the key of the write's first add under a version condition:
// the contended counter whose writes are chained.
func laneKey(ops []store.Op) (store.Key, bool) {
	for _, op := range ops {
		if op.Kind == store.OpAdd && op.Cond.Kind == store.CondVersion {
			return op.Item.Key, true
		}
	}
	return store.Key{}, false
}

// lanes holds the waiting writes of each lane; a lane with a call in flight
// is running.
type lanes struct {
	mu    sync.Mutex
	m     map[store.Key]*lane
	stats CombineStats
}

type lane struct {
	queue   []*combineReq
	running bool
}

func (l *lanes) submit(s *Store, k store.Key, r *combineReq) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = make(map[store.Key]*lane)
	}
	ln := l.m[k]
	if ln == nil {
		ln = &lane{}
		l.m[k] = ln
	}
	ln.queue = append(ln.queue, r)
	if !ln.running {
		ln.running = true
		go s.runLane(k, ln)
	}
}

// runLane commits the lane's waiting writes, a batch at a time, until none
// is left.
func (s *Store) runLane(k store.Key, ln *lane) {
	for {
		s.lanes.mu.Lock()
		if len(ln.queue) == 0 {
			ln.running = false
			delete(s.lanes.m, k)
			s.lanes.mu.Unlock()
			return
		}
		batch, c := takeBatch(ln.queue)
		ln.queue = ln.queue[len(batch):]
		s.lanes.stats.Calls++
		s.lanes.stats.Writes += int64(len(batch))
		s.lanes.mu.Unlock()
		s.commitBatch(batch, c)
	}
}

// commitBatch runs a batch as one call, or each write alone when the call
// fails or the batch holds one write.
func (s *Store) commitBatch(batch []*combineReq, c *combined) {
	if len(batch) == 1 {
		batch[0].done <- s.writeBounded(batch[0].ctx, batch[0].ops)
		return
	}
	ctx, cancel := context.WithTimeout(batch[0].ctx, submittedWriteTimeout)
	err := s.writeCombined(ctx, c)
	cancel()
	if err == nil {
		for _, r := range batch {
			r.done <- nil
		}
		return
	}
	s.lanes.mu.Lock()
	s.lanes.stats.Fallbacks++
	s.lanes.mu.Unlock()
	for _, r := range batch {
		r.done <- s.writeBounded(r.ctx, r.ops)
	}
}

// submittedWriteTimeout bounds each call a submitted write makes: the write
// outlives its request's cancellation (its verdict is owed once submitted),
// so without a bound of its own a call that never answers would hold its
// lane, and every later write on the counter, for ever. A call cut short
// answers an error; its write may still have landed, which the caller's
// idempotency record (in the same transaction) tells on a retry.
const submittedWriteTimeout = 10 * time.Second

func (s *Store) writeBounded(ctx context.Context, ops []store.Op) error {
	ctx, cancel := context.WithTimeout(ctx, submittedWriteTimeout)
	defer cancel()
	return s.Write(ctx, ops...)
}

// combined is a batch's ops after merging, and how many versions each
// merged add moves its counter on.
type combined struct {
	ops   []store.Op
	bumps []int64
	at    map[store.Key]int // index in ops
}

// takeBatch takes the longest prefix of queue (at least one) whose writes
// merge into one valid transaction.
func takeBatch(queue []*combineReq) ([]*combineReq, *combined) {
	c := &combined{at: make(map[store.Key]int)}
	n := 0
	for _, r := range queue {
		if n == maxCombinedWrites || !c.merge(r.ops) {
			break
		}
		n++
	}
	return queue[:n], c
}

// merge adds ops to c if they merge (see the package's combining rules) and
// the result is still a valid transaction; otherwise c is unchanged.
func (c *combined) merge(ops []store.Op) bool {
	next := &combined{ops: append([]store.Op(nil), c.ops...), bumps: append([]int64(nil), c.bumps...), at: make(map[store.Key]int, len(c.at)+len(ops))}
	for k, i := range c.at {
		next.at[k] = i
	}
	for _, op := range ops {
		i, seen := next.at[op.Item.Key]
		if !seen {
			next.at[op.Item.Key] = len(next.ops)
			next.ops = append(next.ops, op)
			next.bumps = append(next.bumps, 1)
			continue
		}
		prev := next.ops[i]
		switch {
		case op.Kind == store.OpCheck && prev.Kind == store.OpCheck && op.Cond == prev.Cond:
			// The same assertion: one check holds for both.
		case chained(prev, next.bumps[i], op):
			merged := prev
			merged.Delta += op.Delta
			if op.Item.Data != nil {
				merged.Item.Data, merged.Item.ExpiresAt = op.Item.Data, op.Item.ExpiresAt
			}
			next.ops[i] = merged
			next.bumps[i]++
		default:
			return false
		}
	}
	if len(c.ops) > 0 && store.ValidateOps(next.ops) != nil {
		return false
	}
	*c = *next
	return true
}

// chained reports whether op, an add on prev's counter, is conditioned on
// the version prev (moving it on by bumps) leaves, and can join it: both move
// the counter the same way under the same bounds, so a sum within the bounds
// means every step was (the counter moves monotonically).
func chained(prev store.Op, bumps int64, op store.Op) bool {
	if prev.Kind != store.OpAdd || op.Kind != store.OpAdd ||
		prev.Cond.Kind != store.CondVersion || op.Cond.Kind != store.CondVersion ||
		op.Cond.Version != prev.Cond.Version+bumps ||
		op.NonNegative != prev.NonNegative || op.Max != prev.Max {
		return false
	}
	switch {
	case (prev.Delta < 0) != (op.Delta < 0):
		return false
	case op.Delta < 0:
		return prev.Delta > math.MinInt64-op.Delta // the sum stays above MinInt64
	default:
		return prev.Delta <= math.MaxInt64-op.Delta
	}
}

// writeCombined runs a merged batch as one TransactWriteItems, with Write's
// retries of transaction conflicts.
func (s *Store) writeCombined(ctx context.Context, c *combined) error {
	if err := store.ValidateOps(c.ops); err != nil {
		return err
	}
	now := s.clock()
	plans := make([]plan, len(c.ops))
	for i, op := range c.ops {
		table, err := s.table(op.Item.Table)
		if err != nil {
			return err
		}
		plans[i] = newPlan(op, table, now)
		if c.bumps[i] > 1 {
			plans[i].values[":one"] = numAttr(c.bumps[i])
		}
	}
	var err error
	for attempt := range writeAttempts {
		if err = s.transact(ctx, plans, now); !isConflict(err) {
			return err
		}
		if werr := conflictBackoff.Sleep(ctx, attempt); werr != nil {
			return werr
		}
	}
	return err
}

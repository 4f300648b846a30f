package store

import (
	"context"
	"fmt"
	"sync"
)

// Extras: writes that ride with a request's change. A caller that must
// record something beside a change made by code it does not own (the
// dashboard's audit entry beside a refund the transactions service writes)
// puts those ops on the context with WithExtras; every adapter appends them
// to the next write made under that context, in the same transaction, so
// the change and its record commit together or not at all. Rules, the same
// on both adapters (the contract suite's Extras tests prove them):
//
//   - The extras ride on each write made under the context until one
//     commits; from then on they are spent and later writes carry nothing.
//     A write that fails (its own condition, an extra's condition, a
//     conflict) leaves them pending, so a service that retries a lost race
//     carries them again.
//   - They are appended after the write's own ops: a failed condition's
//     Index keeps naming the caller's op, and an index at or past the
//     caller's count names an extra.
//   - The write and its extras are one transaction, within MaxTransactOps
//     and MaxTransactSize: a write that no longer fits fails as a write of
//     that shape would (ErrInvalid, ErrTooLarge), with nothing written.
//   - A write in flight holds them: a second write made meanwhile under the
//     same context carries none (the extras commit once).
//   - Combined writes (dynamostore's Submit, the embedded group commit)
//     carry each write's extras as that write's own items, so they commit
//     with it and only with it.
type Extras struct {
	mu     sync.Mutex
	ops    []Op
	held   bool // a write in flight carries them
	landed bool // a write carrying them committed
}

type extrasKey struct{}

// WithExtras returns ctx carrying ops, to be committed with the next write
// made under it, and the handle that tells whether they were.
func WithExtras(ctx context.Context, ops ...Op) (context.Context, *Extras) {
	x := &Extras{ops: ops}
	return context.WithValue(ctx, extrasKey{}, x), x
}

// WithoutExtras returns ctx carrying no extras: for an adapter's own
// writes on behalf of a write whose extras it already took.
func WithoutExtras(ctx context.Context) context.Context {
	if ctx.Value(extrasKey{}) == nil {
		return ctx
	}
	return context.WithValue(ctx, extrasKey{}, (*Extras)(nil))
}

// Committed reports whether a write carrying the extras has committed.
func (x *Extras) Committed() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.landed
}

// AttachExtras is for adapters: ops with ctx's pending extras appended, and
// done, which the adapter calls once with the write's verdict (nil marks
// the extras committed; an error leaves them pending). With no extras
// pending, ops come back as they are.
func AttachExtras(ctx context.Context, ops []Op) (all []Op, done func(error), err error) {
	x, _ := ctx.Value(extrasKey{}).(*Extras)
	if x == nil {
		return ops, func(error) {}, nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.landed || x.held || len(x.ops) == 0 {
		return ops, func(error) {}, nil
	}
	if len(ops)+len(x.ops) > MaxTransactOps {
		return nil, nil, fmt.Errorf("%w: %d ops and %d extras are more than %d", ErrInvalid, len(ops), len(x.ops), MaxTransactOps)
	}
	x.held = true
	all = append(append(make([]Op, 0, len(ops)+len(x.ops)), ops...), x.ops...)
	var once sync.Once
	return all, func(werr error) {
		once.Do(func() {
			x.mu.Lock()
			defer x.mu.Unlock()
			x.held = false
			x.landed = werr == nil
		})
	}, nil
}

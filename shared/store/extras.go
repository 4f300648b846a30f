package store

import (
	"context"
	"errors"
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
//   - They are appended after the write's own ops. A failed condition on
//     the caller's op is the usual *ConditionFailedError (its Index names
//     that op); a failed condition on an extra is ErrExtraFailed, never a
//     *ConditionFailedError the caller could take for one of its own.
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
	failed bool // a write failed on one of them
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

// ErrExtraFailed is the error of a write whose extra's condition failed:
// nothing was written. It is not a *ConditionFailedError, whose Index names
// one of the caller's ops, so the service that made the write (which knows
// nothing of the extras) cannot mistake it for one of its own conditions;
// the extras' owner finds it with errors.Is or Extras.Failed.
var ErrExtraFailed = errors.New("store: an extra write's condition failed")

// Failed reports whether a write carrying the extras failed on one of them.
func (x *Extras) Failed() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.failed
}

// AttachExtras is for adapters: ops with ctx's pending extras appended, and
// done, which the adapter calls once with the write's verdict and whose
// result it returns instead: nil marks the extras committed; a failed
// condition on an extra becomes ErrExtraFailed; any other error leaves
// them pending. With no extras pending, ops come back as they are.
func AttachExtras(ctx context.Context, ops []Op) (all []Op, done func(error) error, err error) {
	x, _ := ctx.Value(extrasKey{}).(*Extras)
	if x == nil {
		return ops, same, nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.landed || x.held || len(x.ops) == 0 {
		return ops, same, nil
	}
	if len(ops)+len(x.ops) > MaxTransactOps {
		return nil, nil, fmt.Errorf("%w: %d ops and %d extras are more than %d", ErrInvalid, len(ops), len(x.ops), MaxTransactOps)
	}
	x.held = true
	n := len(ops)
	all = append(append(make([]Op, 0, n+len(x.ops)), ops...), x.ops...)
	var once sync.Once
	return all, func(werr error) error {
		if cf, ok := IsConditionFailed(werr); ok && cf.Index >= n {
			werr = fmt.Errorf("%w: extra %d on %s", ErrExtraFailed, cf.Index-n, all[cf.Index].Item.Key)
		}
		once.Do(func() {
			x.mu.Lock()
			defer x.mu.Unlock()
			x.held = false
			x.landed = werr == nil
			x.failed = x.failed || errors.Is(werr, ErrExtraFailed)
		})
		return werr
	}, nil
}

func same(err error) error { return err }

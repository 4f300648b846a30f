// Package retry is the one backoff-with-jitter helper: every loop that waits
// before trying again (a lost race on a version, a transaction conflict, a
// busy lease) takes its delay from a Backoff, so the policy is written and
// tested once.
//
// The delay before retry n (from 0) is drawn from a window that doubles from
// Base up to Max. Full jitter (uniform in [0, window]) spreads racers best
// when many collide on one item (AWS Architecture Blog, "Exponential Backoff
// and Jitter"); Equal jitter (uniform in [window/2, window]) keeps a floor
// under the wait, for callers that must not retry at once.
package retry

import (
	"context"
	"math/rand/v2"
	"time"
)

// Jitter says how a delay is drawn from its window.
type Jitter int

const (
	Full  Jitter = iota // uniform in [0, window]
	Equal               // uniform in [window/2, window]
	None                // exactly the window (deterministic: schedules, visibility timeouts)
)

// Backoff is a retry delay policy.
type Backoff struct {
	Base   time.Duration // window of retry 0; must be > 0
	Max    time.Duration // cap of the window; 0 means no cap
	Jitter Jitter
	// Floor is added to every delay (so a Full jitter never waits zero).
	Floor time.Duration
}

// Window is the un-jittered delay of retry n: Base doubled n times, capped.
func (b Backoff) Window(n int) time.Duration {
	if n < 0 {
		n = 0
	}
	w := b.Base
	for i := 0; i < n; i++ {
		if b.Max > 0 && w >= b.Max {
			break
		}
		if w > time.Duration(1<<62)/2 {
			break // no overflow, however large n is
		}
		w *= 2
	}
	if b.Max > 0 && w > b.Max {
		w = b.Max
	}
	return w
}

// Delay is the jittered delay before retry n.
func (b Backoff) Delay(n int) time.Duration {
	w := b.Window(n)
	var d time.Duration
	switch {
	case w <= 0:
	case b.Jitter == Full:
		d = rand.N(w + 1)
	case b.Jitter == Equal:
		d = w/2 + rand.N(w-w/2+1)
	default:
		d = w
	}
	return d + b.Floor
}

// Sleep waits Delay(n), or returns ctx's error if ctx ends first.
func (b Backoff) Sleep(ctx context.Context, n int) error {
	return SleepCtx(ctx, b.Delay(n))
}

// SleepCtx waits d, or returns ctx's error if ctx ends first.
func SleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

package store

import (
	"context"
	"errors"
	"time"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/retry"
)

// The optimistic read-modify-write loop, written once for every record the
// areas change: an attempt reads the record, decides the change against what
// it read, and writes it conditioned on the version it read. Of any number
// of concurrent attempts on one version exactly one commits; each loser reads
// again and decides anew (a capture racing a cancel finds the other's result
// and is refused by its own rules), after a jittered backoff, a bounded
// number of times, and then answers CodeBusy.

// RaceAttempts is how many attempts a loop makes by default.
const RaceAttempts = 8

// RaceBackoff spaces the attempts: full jitter over a window doubling from
// 2 ms to 64 ms (at least 1 ms), which spreads racers on one record best
// (AWS Architecture Blog, "Exponential Backoff and Jitter").
var RaceBackoff = retry.Backoff{Base: 2 * time.Millisecond, Max: 64 * time.Millisecond, Jitter: retry.Full, Floor: time.Millisecond}

// CodeBusy is the answer when a record kept changing through every attempt:
// a 409 that a retry (with the same Idempotency-Key) settles.
var CodeBusy = apierr.Register(apierr.CodeInfo{Name: "resource_busy", Kind: apierr.Conflict,
	Meaning: "The record kept changing under concurrent requests; retry with the same Idempotency-Key."})

// errLost marks an attempt that lost its race.
var errLost = errors.New("store: lost the race; read again")

// Race is one optimistic loop.
type Race struct {
	Op       string // names the loop in errors ("wallet.move")
	What     string // names the record in the busy message ("payout po_1")
	Attempts int    // 0: RaceAttempts
}

// Run calls attempt until it returns anything but a lost race (see Settle),
// sleeping RaceBackoff between attempts; after the last attempt it answers
// CodeBusy. n counts attempts from 0. Errors: attempt's, CodeBusy, or the
// context's when it ends during a backoff.
func (r Race) Run(ctx context.Context, attempt func(n int) error) error {
	max := r.Attempts
	if max <= 0 {
		max = RaceAttempts
	}
	for n := 0; ; n++ {
		err := attempt(n)
		if !errors.Is(err, errLost) {
			return err
		}
		if n+1 >= max {
			return apierr.New(CodeBusy, "%s kept changing; retry with the same Idempotency-Key", r.What)
		}
		if err := RaceBackoff.Sleep(ctx, n); err != nil {
			return apierr.Wrap(r.Op, apierr.Unavailable, err)
		}
	}
}

// Settle classifies the error of an attempt's conditional write, after the
// caller has taken out what it answers itself (an idempotency key's verdict,
// an insufficient balance): nil stays nil; a lost race (LostRace over
// recordOps) makes Run try again; anything else is the store failing
// (Unavailable, unless the error carries a client kind of its own).
func (r Race) Settle(err error, recordOps ...int) error {
	switch {
	case err == nil:
		return nil
	case LostRace(err, recordOps...):
		return errLost
	}
	return apierr.Wrap(r.Op, apierr.Unavailable, err)
}

// Lost is what an attempt returns when it found, before writing, that the
// record changed since it was read: Run tries again.
func Lost() error { return errLost }

// LostRace reports whether err says another writer changed what an attempt
// read: a failed condition on one of recordOps (the ops conditioned on the
// versions read; op 0 when none are named), or a transaction the store
// refused for a concurrent one (kind Conflict, from the adapter).
func LostRace(err error, recordOps ...int) bool {
	if cf, ok := IsConditionFailed(err); ok {
		if len(recordOps) == 0 {
			return cf.Index == 0
		}
		for _, i := range recordOps {
			if cf.Index == i {
				return true
			}
		}
		return false
	}
	return apierr.KindOf(err) == apierr.Conflict
}

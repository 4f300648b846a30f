package disputes

import (
	"context"
	"errors"
	"time"

	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
)

// SweepInterval is how often the sweeper runs (its Schedule; make run runs
// it as a periodic task).
const SweepInterval = time.Minute

// sweepBudget bounds the due entries one run reads per shard; the next run
// takes the rest.
const sweepBudget = 1000

// Sweep acts on the disputes whose time came, from the due index (a Query
// per shard, never a Scan): a dispute still needing a response at its
// due_by is lost (closed_reason expired); a dispute under review whose
// review ended gets the sandbox issuer's decision (won or lost,
// closed_reason reviewed). Each is one transaction conditioned on the
// dispute's and the payment's versions (a dispute changed meanwhile is read
// again, up to three times, then left to the next run): two sweepers racing
// close each dispute once. Then it repays negative balances from available
// (ledger.Recover). It returns how many disputes it closed and the first
// failure.
func (s *Service) Sweep(ctx context.Context) (int, error) {
	now := s.clock().UTC()
	n := 0
	var firstErr error
	for shard := 0; shard < dueindex.Shards; shard++ {
		_, err := dueIndex.VisitShard(ctx, s.st, shard, time.Time{}, now, sweepBudget, func(e dueindex.Entry) error {
			ok, err := s.sweepOne(ctx, e, now)
			if err != nil {
				s.log.Warn("dispute sweep failed; the next run retries", "entry", e.String(), "error", err.Error())
				if firstErr == nil {
					firstErr = err
				}
			}
			if ok {
				n++
			}
			return nil
		})
		if err != nil {
			return n, err
		}
	}
	if _, err := ledger.Recover(ctx, s.st, now); err != nil && firstErr == nil {
		firstErr = err
	}
	return n, firstErr
}

const sweepAttempts = 3

func (s *Service) sweepOne(ctx context.Context, e dueindex.Entry, now time.Time) (closed bool, _ error) {
	drop := func() error { return s.st.Write(ctx, store.Delete(e.Key, store.Always)) }
	race := store.Race{Op: "disputes.Sweep", What: "dispute " + e.ID, Attempts: sweepAttempts}
	err := race.Run(ctx, func(attempt int) error {
		r, err := s.get(ctx, e.Account, e.ID)
		if apierr.Is(err, apierr.NotFound) {
			return drop()
		}
		if err != nil {
			return err
		}
		due := r.dueAt()
		if due.IsZero() || !due.Equal(e.Due) {
			// The dispute moved on (its entry moves with the status): an
			// entry left behind (by hand, a restore, or an earlier layout of
			// the index) is dropped.
			return drop()
		}
		if due.After(now) {
			return nil
		}
		c := &step{rec: r, last: attempt == sweepAttempts-1}
		switch {
		case r.Status == NeedsResponse:
			err = s.closeAs(ctx, c, Lost, ClosedExpired, "expired", now)
		case r.Decision == Won || r.Decision == Lost:
			err = s.closeAs(ctx, c, r.Decision, ClosedReviewed, "decided", now)
		default:
			return errors.New("dispute " + r.ID + " is under review without a decision (no acquirer decides live disputes)")
		}
		if err != nil {
			return err
		}
		if _, err := s.commit(ctx, c, nil, false); err != nil {
			return err
		}
		closed = true
		return nil
	})
	if apierr.HasCode(err, store.CodeBusy) {
		return false, nil // still changing: the next run sees it again
	}
	return closed, err
}

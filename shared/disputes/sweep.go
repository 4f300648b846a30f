package disputes

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/ledger"
	"github.com/paygate/paygate/shared/store"
)

// SweepInterval is how often the sweeper runs (its Schedule; make run runs
// it as a periodic task).
const SweepInterval = time.Minute

// sweepPages bounds the due index pages one run reads per shard (100 each);
// the next run takes the rest.
const sweepPages = 10

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
	for shard := 0; shard < DueShards; shard++ {
		q := store.Query{Table: store.TablePayments, PK: duePK(shard), To: dueBound(now), Limit: 100}
		for page := 0; page < sweepPages; page++ {
			res, err := s.st.Query(ctx, q)
			if err != nil {
				return n, apierr.Wrap("disputes.Sweep", apierr.Unavailable, err)
			}
			for _, it := range res.Items {
				ok, err := s.sweepOne(ctx, it.Key, now)
				if err != nil {
					s.log.Warn("dispute sweep failed; the next run retries", "entry", it.SK, "error", err.Error())
					if firstErr == nil {
						firstErr = err
					}
				}
				if ok {
					n++
				}
			}
			if res.Next == "" {
				break
			}
			q.Cursor = res.Next
		}
	}
	if _, err := ledger.Recover(ctx, s.st, now); err != nil && firstErr == nil {
		firstErr = err
	}
	return n, firstErr
}

const sweepAttempts = 3

func (s *Service) sweepOne(ctx context.Context, entry store.Key, now time.Time) (bool, error) {
	accountID, id, ok := parseDueSK(entry.SK)
	if !ok {
		return false, s.st.Write(ctx, store.Delete(entry, store.Always))
	}
	for attempt := 0; attempt < sweepAttempts; attempt++ {
		r, err := s.get(ctx, accountID, id)
		if apierr.Is(err, apierr.NotFound) {
			return false, s.st.Write(ctx, store.Delete(entry, store.Always))
		}
		if err != nil {
			return false, err
		}
		due := r.dueAt()
		if due.IsZero() || dueKey(r, due) != entry {
			// Cannot happen through ops (the entry moves with the status);
			// one left by hand or a restore is dropped.
			return false, s.st.Write(ctx, store.Delete(entry, store.Always))
		}
		if due.After(now) {
			return false, nil
		}
		c := &step{rec: r, last: attempt == sweepAttempts-1}
		switch {
		case r.Status == NeedsResponse:
			err = s.closeAs(ctx, c, Lost, ClosedExpired, "expired", now)
		case r.Decision == Won || r.Decision == Lost:
			err = s.closeAs(ctx, c, r.Decision, ClosedReviewed, "decided", now)
		default:
			return false, errors.New("dispute " + r.ID + " is under review without a decision (no acquirer decides live disputes)")
		}
		if err != nil {
			return false, err
		}
		_, again, err := s.commit(ctx, c, nil, false)
		if err != nil {
			return false, err
		}
		if !again {
			return true, nil
		}
	}
	return false, nil
}

func formatInt(n int64) string { return strconv.FormatInt(n, 10) }

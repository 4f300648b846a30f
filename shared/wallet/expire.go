package wallet

import (
	"context"
	"encoding/json"
	"time"

	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/store"
)

// RequeueAge is how old an open transaction must be before the expirer sends
// its confirmation message again (the first was lost between the commit and
// the send, or in a crash): well past the normal send-to-consume time.
const RequeueAge = 30 * time.Second

// Work per run: index pages of expirePage entries, at most expireBudget in
// all. Entries are read oldest first, so the expired ones (the oldest) are
// always handled first and leave the index; what is left is at most
// ConfirmTimeout's worth of authorisations.
const (
	expirePage   = 200
	expireBudget = 1000
)

// ExpireResult is what one expirer run did.
type ExpireResult struct {
	Failed   int // open transactions failed with confirmation_timeout
	Requeued int // open transactions whose message was sent again
}

// Expire fails every open transaction the shopper has not confirmed within
// the confirmation timeout (FAILED, confirmation_timeout, with its event,
// once: the move is conditioned like every other), and re-queues the open
// ones older than RequeueAge. It reads only the open index, never a Scan.
// Errors: Unavailable.
func (s *Service) Expire(ctx context.Context) (ExpireResult, error) {
	var res ExpireResult
	now := s.clock()
	// Entries older than the shorter of the two ages: a timeout shorter than
	// RequeueAge (tests, the crash test's server) still fails on time.
	cutoff, requeueCutoff := now.Add(-s.timeout), openBefore(now.Add(-min(RequeueAge, s.timeout)))
	seen := 0
	for shard := 0; shard < openShards && seen < expireBudget; shard++ {
		cursor := ""
		for seen < expireBudget {
			page, err := s.st.Query(ctx, store.Query{Table: store.TablePayments, PK: openPK(shard), To: requeueCutoff,
				Limit: min(expirePage, expireBudget-seen), Cursor: cursor})
			if err != nil {
				return res, apierr.Wrap("wallet.Expire", apierr.Unavailable, err)
			}
			for _, it := range page.Items {
				seen++
				var ref openRef
				if err := json.Unmarshal(it.Data, &ref); err != nil {
					s.log.Error("wallet open-index entry malformed; removed", "sk", it.SK)
					_ = s.st.Write(ctx, store.Delete(it.Key, store.Always))
					continue
				}
				failed, err := s.expireOne(ctx, ref, it, cutoff)
				if err != nil {
					return res, err
				}
				if failed {
					res.Failed++
				} else {
					res.Requeued++
				}
			}
			if cursor = page.Next; cursor == "" {
				break
			}
		}
	}
	if res.Failed+res.Requeued > 0 {
		s.log.Info("wallet expirer run", "failed", res.Failed, "requeued", res.Requeued)
	}
	return res, nil
}

func (s *Service) expireOne(ctx context.Context, ref openRef, it store.Item, cutoff time.Time) (failed bool, _ error) {
	cur, err := s.load(ctx, ref.AccountID, ref.ID)
	if apierr.Is(err, apierr.NotFound) {
		return false, s.st.Write(ctx, store.Delete(it.Key, store.Always))
	}
	if err != nil {
		return false, err
	}
	if !cur.Status.Open() {
		// The move that closed it deleted the entry in its own
		// transaction; an entry left behind is debris.
		return false, s.st.Write(ctx, store.Delete(it.Key, store.Always))
	}
	if cur.CreatedAt.After(cutoff) {
		s.enqueue(ctx, cur.AccountID, cur.ID, 0)
		return false, nil
	}
	_, changed, err := s.move(ctx, cur, nil, toStatus(StatusFailed, ReasonTimeout))
	if changed {
		s.log.Info("wallet transaction failed: not confirmed in time", "wallet_transaction_id", cur.ID)
	}
	return changed, err
}

// RunExpirer calls Expire every interval until ctx is done (for servers that
// run the scheduled task themselves, such as the crash test's).
func (s *Service) RunExpirer(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := s.Expire(ctx); err != nil && ctx.Err() == nil {
				s.log.Error("wallet expirer run failed", "error", err.Error())
			}
		}
	}
}

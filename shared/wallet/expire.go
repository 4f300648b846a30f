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

// Work per run: first the expired entries of every shard, oldest first (at
// most expireBudget; each leaves the index), then the re-queues, at most
// requeuePerShard per shard, so neither a burst of young transactions in one
// shard nor a backlog of expired ones can starve the other shards.
const (
	expirePage      = 200
	expireBudget    = 1000
	requeuePerShard = 100
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
	cutoff := now.Add(-s.timeout)
	expired := openBefore(cutoff)
	// A timeout shorter than RequeueAge (tests, the crash test's server)
	// leaves nothing to re-queue.
	young := openBefore(now.Add(-min(RequeueAge, s.timeout)))
	budget := expireBudget
	for shard := 0; shard < openShards && budget > 0; shard++ {
		n, err := s.visit(ctx, shard, "", expired, budget, cutoff, &res)
		if err != nil {
			return res, err
		}
		budget -= n
	}
	for shard := 0; shard < openShards; shard++ {
		if _, err := s.visit(ctx, shard, expired, young, requeuePerShard, cutoff, &res); err != nil {
			return res, err
		}
	}
	if res.Failed+res.Requeued > 0 {
		s.log.Info("wallet expirer run", "failed", res.Failed, "requeued", res.Requeued)
	}
	return res, nil
}

// visit handles up to budget entries of one shard in [from, to], oldest
// first, and returns how many it read.
func (s *Service) visit(ctx context.Context, shard int, from, to string, budget int, cutoff time.Time, res *ExpireResult) (int, error) {
	seen, cursor := 0, ""
	for seen < budget {
		page, err := s.st.Query(ctx, store.Query{Table: store.TablePayments, PK: openPK(shard), From: from, To: to,
			Limit: min(expirePage, budget-seen), Cursor: cursor})
		if err != nil {
			return seen, apierr.Wrap("wallet.Expire", apierr.Unavailable, err)
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
				return seen, err
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
	return seen, nil
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

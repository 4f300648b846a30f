package wallet

import (
	"context"
	"time"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
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
	// A timeout shorter than RequeueAge (tests, the crash test's server)
	// leaves nothing to re-queue.
	young := now.Add(-min(RequeueAge, s.timeout))
	visit := func(e dueindex.Entry) error {
		failed, err := s.expireOne(ctx, e, cutoff)
		switch {
		case err != nil:
			return err
		case failed:
			res.Failed++
		default:
			res.Requeued++
		}
		return nil
	}
	// Created before the cutoff: failed, within one budget over the shards.
	if _, err := openIndex.Visit(ctx, s.st, time.Time{}, cutoff.Add(-time.Nanosecond), expireBudget, visit); err != nil {
		return res, err
	}
	// Created between the cutoff and RequeueAge ago: re-queued, a few a shard.
	for shard := 0; shard < dueindex.Shards; shard++ {
		if _, err := openIndex.VisitShard(ctx, s.st, shard, cutoff, young.Add(-time.Nanosecond), requeuePerShard, visit); err != nil {
			return res, err
		}
	}
	if res.Failed+res.Requeued > 0 {
		s.log.Info("wallet expirer run", "failed", res.Failed, "requeued", res.Requeued)
	}
	return res, nil
}

func (s *Service) expireOne(ctx context.Context, e dueindex.Entry, cutoff time.Time) (failed bool, _ error) {
	cur, err := s.load(ctx, e.Account, e.ID)
	if apierr.Is(err, apierr.NotFound) {
		return false, s.st.Write(ctx, store.Delete(e.Key, store.Always))
	}
	if err != nil {
		return false, err
	}
	if !cur.Status.Open() {
		// The move that closed it deleted the entry in its own
		// transaction; an entry left behind (or written in an earlier
		// layout of the index) is debris.
		return false, s.st.Write(ctx, store.Delete(e.Key, store.Always))
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

package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
)

// SettleBatch bounds the settlements one run of Settle makes per shard (the
// next run takes the rest).
const SettleBatch = 1000

// Settle makes available the captured funds whose settlement delay has
// passed by now: it visits the due entries of every shard of the
// settlement index (settlementDue, with the entries of its earlier layout),
// oldest first, reads each (its data is the settlement) and writes the
// settlement entry (pending -> available) with its balances and the due
// entry's removal, conditioned on the entry still being there, in one
// transaction: two runs racing settle each capture once. It returns how
// many it settled; a failed one is left to the next run and the first such
// error returned.
func Settle(ctx context.Context, st store.Store, now time.Time) (int, error) {
	now = now.UTC()
	n := 0
	var firstErr error
	for shard := 0; shard < dueindex.Shards; shard++ {
		_, err := settlementDue.VisitShard(ctx, st, shard, time.Time{}, now, SettleBatch, func(e dueindex.Entry) error {
			ok, err := settleOne(ctx, st, e.Key, now)
			if ok {
				n++
			}
			if err != nil && firstErr == nil {
				firstErr = err
			}
			return nil
		})
		if err != nil {
			return n, err
		}
	}
	return n, firstErr
}

// settleOne settles the due entry at k (the key as read).
func settleOne(ctx context.Context, st store.Store, k store.Key, now time.Time) (bool, error) {
	it, err := st.Get(ctx, k)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil // another run settled it
	}
	if err != nil {
		return false, apierr.Wrap("ledger.Settle", apierr.Unavailable, err)
	}
	var d due
	if err := json.Unmarshal(it.Data, &d); err != nil || d.Amount <= 0 || d.AccountID == "" {
		// Not written by Batch: drop it rather than fail every run on it.
		if err := st.Write(ctx, store.Delete(k, store.Always)); err != nil {
			return false, apierr.Wrap("ledger.Settle", apierr.Unavailable, err)
		}
		return false, nil
	}
	var b Batch
	b.Add(d.settlement(now))
	ops, err := b.Ops(now)
	if err != nil {
		return false, err
	}
	ops = append(ops, store.Delete(k, store.IfExists))
	err = st.Write(ctx, ops...)
	if cf, ok := store.IsConditionFailed(err); ok && cf.Index == len(ops)-1 {
		return false, nil // another run settled it
	}
	if err != nil {
		return false, apierr.Wrap("ledger.Settle", apierr.Unavailable, err)
	}
	return true, nil
}

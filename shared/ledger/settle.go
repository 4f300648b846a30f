package ledger

import (
	"context"
	"encoding/json"
	"time"

	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/store"
)

// SettleBatch bounds the settlements one run of Settle makes per shard (the
// next run takes the rest).
const SettleBatch = 1000

// Settle makes available the captured funds whose settlement delay has
// passed by now: it reads the due entries of every shard, oldest first, and
// for each writes the settlement entry (pending -> available) with its
// balances and the due entry's removal, conditioned on the entry still
// being there, in one transaction: two runs racing settle each capture
// once. It returns how many it settled; a failed one is left to the next run
// and the first such error returned.
func Settle(ctx context.Context, st store.Store, now time.Time) (int, error) {
	now = now.UTC()
	n := 0
	var firstErr error
	for shard := 0; shard < DueShards; shard++ {
		q := store.Query{Table: store.TableLedger, PK: duePK(shard), To: now.Format(dueSKTime) + "#~", Limit: 100}
		done := 0
		for done < SettleBatch {
			page, err := st.Query(ctx, q)
			if err != nil {
				return n, apierr.Wrap("ledger.Settle", apierr.Unavailable, err)
			}
			for _, it := range page.Items {
				done++
				ok, err := settleOne(ctx, st, it, now)
				if ok {
					n++
				}
				if err != nil && firstErr == nil {
					firstErr = err
				}
			}
			if page.Next == "" {
				break
			}
			q.Cursor = page.Next
		}
	}
	return n, firstErr
}

func settleOne(ctx context.Context, st store.Store, it store.Item, now time.Time) (bool, error) {
	var d due
	if err := json.Unmarshal(it.Data, &d); err != nil || d.Amount <= 0 || d.AccountID == "" {
		// Not written by Batch: drop it rather than fail every run on it.
		return false, st.Write(ctx, store.Delete(it.Key, store.Always))
	}
	var b Batch
	b.Add(d.settlement(now))
	ops, err := b.Ops(now)
	if err != nil {
		return false, err
	}
	ops = append(ops, store.Delete(it.Key, store.IfExists))
	err = st.Write(ctx, ops...)
	if cf, ok := store.IsConditionFailed(err); ok && cf.Index == len(ops)-1 {
		return false, nil // another run settled it
	}
	if err != nil {
		return false, apierr.Wrap("ledger.Settle", apierr.Unavailable, err)
	}
	return true, nil
}

package orders

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
)

// ReconcileAge is how old a pending order must be before the reconciler
// re-queues it: well past the normal enqueue-to-fulfil time, so it rarely
// duplicates a message in flight (duplicates are harmless anyway).
const ReconcileAge = time.Minute

// SupplierTimeout is how long an order may stay pending: one whose supplier
// has given no final answer (completed or failed) this long after the order
// was placed is failed with reason supplier_timeout and refunded, once, with
// its order.failed event. The consumer applies the same limit, so a late
// message never asks the supplier again.
const SupplierTimeout = time.Hour

// ReasonSupplierTimeout is the failure_reason of an order failed by
// SupplierTimeout.
const ReasonSupplierTimeout = "supplier_timeout"

// ReconcileInterval is how often the reconciler should run.
const ReconcileInterval = time.Minute

// Work per run: pages of reconcilePage index entries, at most reconcileBudget
// entries in all (each one queue send, or a read and a transaction), which
// fits the function's 30 s timeout. When the budget runs out, the run stores
// where it stopped and the next run continues there, so every pending order
// is visited within ceil(pending / reconcileBudget) runs, never starved by
// the ones before it.
const (
	reconcilePage   = 200
	reconcileBudget = 1000
)

// resumeKey holds where the last run stopped (absent when it finished).
var resumeKey = store.Key{Table: store.TableOrders, PK: "reconciler", SK: "resume"}

type resumePoint struct {
	Shard  int    `json:"shard"`
	Cursor string `json:"cursor"`
}

// ReconcileResult is what one run did.
type ReconcileResult struct {
	Requeued int  // pending orders whose message was sent again
	Failed   int  // orders failed and refunded for SupplierTimeout
	More     bool // the budget ran out; the next run continues
}

// Reconcile re-queues pending orders older than ReconcileAge (their message
// was lost between the order's commit and the queue send, or their supplier
// is slow) and fails those pending longer than SupplierTimeout. It reads only
// the pending index, never a Scan, and returns how many orders it re-queued
// or failed.
func (s *Service) Reconcile(ctx context.Context) (int, error) {
	res, err := s.reconcile(ctx, reconcilePage, reconcileBudget)
	if res.Requeued+res.Failed > 0 || res.More {
		s.log.Info("reconciler run", "requeued", res.Requeued, "failed", res.Failed, "more", res.More)
	}
	return res.Requeued + res.Failed, err
}

func (s *Service) reconcile(ctx context.Context, pageSize, budget int) (ReconcileResult, error) {
	var res ReconcileResult
	now := s.clock()
	cutoff := pendingBefore(now.Add(-ReconcileAge))
	start, stored, err := s.loadResume(ctx)
	if err != nil {
		return res, err
	}
	seen := 0
	// From the resume point to the last shard's end, without wrapping: the
	// next run starts over at shard 0.
	for shard := start.Shard; shard < pendingShards; shard++ {
		cursor := ""
		if shard == start.Shard {
			cursor = start.Cursor
		}
		for {
			if seen == budget {
				// Within a shard a cursor means more follows; at a shard's
				// start, look before promising more.
				more := cursor != ""
				for ; !more && shard < pendingShards; shard++ {
					if more, err = s.anyPending(ctx, shard, cutoff); err != nil {
						return res, err
					}
					if more {
						break
					}
				}
				if res.More = more; more {
					return res, s.saveResume(ctx, resumePoint{Shard: shard, Cursor: cursor})
				}
				return res, s.clearResume(ctx, stored)
			}
			page, err := s.st.Query(ctx, store.Query{Table: store.TableOrders, PK: pendingPK(shard), To: cutoff,
				Limit: min(pageSize, budget-seen), Cursor: cursor})
			if err != nil {
				return res, apierr.Wrap("orders.Reconcile", apierr.Unavailable, err)
			}
			for _, it := range page.Items {
				seen++
				failed, err := s.reconcileOne(ctx, it, now)
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
	return res, s.clearResume(ctx, stored)
}

// anyPending reports whether shard holds an entry due for reconciling.
func (s *Service) anyPending(ctx context.Context, shard int, cutoff string) (bool, error) {
	page, err := s.st.Query(ctx, store.Query{Table: store.TableOrders, PK: pendingPK(shard), To: cutoff, Limit: 1})
	if err != nil {
		return false, apierr.Wrap("orders.Reconcile", apierr.Unavailable, err)
	}
	return len(page.Items) > 0, nil
}

// clearResume forgets a stored resume point: the run went through to the end.
func (s *Service) clearResume(ctx context.Context, stored bool) error {
	if !stored {
		return nil
	}
	if err := s.st.Write(ctx, store.Delete(resumeKey, store.Always)); err != nil {
		return apierr.Wrap("orders.Reconcile", apierr.Unavailable, err)
	}
	return nil
}

// reconcileOne handles one pending index entry: past SupplierTimeout the
// order is failed (true), else its message is sent again.
func (s *Service) reconcileOne(ctx context.Context, it store.Item, now time.Time) (failed bool, _ error) {
	var ref pendingRef
	if err := json.Unmarshal(it.Data, &ref); err != nil {
		s.log.Error("pending index entry malformed", "sk", it.SK)
		return false, nil
	}
	created, err := time.Parse(pendingSKTime, strings.SplitN(it.SK, "#", 2)[0])
	if err == nil && now.Sub(created) >= SupplierTimeout {
		rec, err := s.load(ctx, ref.AccountID, ref.OrderID)
		if apierr.Is(err, apierr.NotFound) {
			s.log.Error("pending index entry names no order; removed", "sk", it.SK)
			return false, s.st.Write(ctx, store.Delete(it.Key, store.Always))
		}
		if err != nil {
			return false, err
		}
		_, changed, err := s.expire(ctx, rec)
		return changed, err
	}
	body, _ := json.Marshal(Message(ref))
	if _, err := s.q.Send(ctx, queue.Fulfilment, body, 0); err != nil {
		return false, apierr.Wrap("orders.Reconcile", apierr.Unavailable, err)
	}
	return false, nil
}

func (s *Service) loadResume(ctx context.Context) (_ resumePoint, stored bool, _ error) {
	var p resumePoint
	it, err := s.st.Get(ctx, resumeKey)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return p, false, nil
	case err != nil:
		return p, false, apierr.Wrap("orders.Reconcile", apierr.Unavailable, err)
	}
	if json.Unmarshal(it.Data, &p) != nil || p.Shard < 0 || p.Shard >= pendingShards {
		s.log.Error("reconciler resume point malformed; starting over")
		return resumePoint{}, true, nil
	}
	return p, true, nil
}

func (s *Service) saveResume(ctx context.Context, p resumePoint) error {
	data, _ := json.Marshal(p)
	if err := s.st.Write(ctx, store.Put(store.Item{Key: resumeKey, Data: data}, store.Always)); err != nil {
		return apierr.Wrap("orders.Reconcile", apierr.Unavailable, err)
	}
	return nil
}

// RunReconciler calls Reconcile every interval until ctx is done (the local
// gateway's stand-in for the scheduled function).
func (s *Service) RunReconciler(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := s.Reconcile(ctx); err != nil && ctx.Err() == nil {
				s.log.Error("reconciler run failed", "error", err.Error())
			}
		}
	}
}

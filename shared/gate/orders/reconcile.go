package orders

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
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
	cutoff := now.Add(-ReconcileAge)
	start, stored, err := s.loadResume(ctx)
	if err != nil {
		return res, err
	}
	seen := 0
	// From the resume point to the last shard's end, without wrapping: the
	// next run starts over at shard 0.
	for shard := start.Shard; shard < dueindex.Shards; shard++ {
		cursor := ""
		if shard == start.Shard {
			cursor = start.Cursor
		}
		for {
			if seen == budget {
				// Within a shard a cursor means more follows; at a shard's
				// start, look before promising more.
				more := cursor != ""
				for ; !more && shard < dueindex.Shards; shard++ {
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
			entries, next, err := pendingIndex.Page(ctx, s.st, shard, time.Time{}, cutoff, cursor, min(pageSize, budget-seen))
			if apierr.Is(err, apierr.Invalid) {
				s.log.Error("reconciler resume cursor malformed; the shard starts over", "shard", shard)
				cursor = ""
				continue
			}
			if err != nil {
				return res, err
			}
			for _, e := range entries {
				seen++
				failed, err := s.reconcileOne(ctx, e, now)
				if err != nil {
					return res, err
				}
				if failed {
					res.Failed++
				} else {
					res.Requeued++
				}
			}
			if cursor = next; cursor == "" {
				break
			}
		}
	}
	return res, s.clearResume(ctx, stored)
}

// anyPending reports whether shard holds an entry due for reconciling.
func (s *Service) anyPending(ctx context.Context, shard int, cutoff time.Time) (bool, error) {
	entries, next, err := pendingIndex.Page(ctx, s.st, shard, time.Time{}, cutoff, "", 1)
	return len(entries) > 0 || next != "", err
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
// order is failed (true), else its message is sent again. An entry whose
// order is no longer pending (one written in an earlier layout of the index,
// which the order's end could not delete) is removed.
func (s *Service) reconcileOne(ctx context.Context, e dueindex.Entry, now time.Time) (failed bool, _ error) {
	if now.Sub(e.Due) >= SupplierTimeout {
		rec, err := s.load(ctx, e.Account, e.ID)
		if apierr.Is(err, apierr.NotFound) {
			s.log.Error("pending index entry names no order; removed", "sk", e.Key.SK)
			return false, s.st.Write(ctx, store.Delete(e.Key, store.Always))
		}
		if err != nil {
			return false, err
		}
		if rec.Status != StatusPending {
			return false, s.st.Write(ctx, store.Delete(e.Key, store.Always))
		}
		_, changed, err := s.expire(ctx, rec)
		return changed, err
	}
	body, err := json.Marshal(Message{AccountID: e.Account, OrderID: e.ID})
	if err != nil {
		return false, apierr.Wrap("orders.Reconcile", apierr.Internal, err)
	}
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
	if json.Unmarshal(it.Data, &p) != nil || p.Shard < 0 || p.Shard >= dueindex.Shards {
		s.log.Error("reconciler resume point malformed; starting over")
		return resumePoint{}, true, nil
	}
	return p, true, nil
}

func (s *Service) saveResume(ctx context.Context, p resumePoint) error {
	data, err := json.Marshal(p)
	if err != nil {
		return apierr.Wrap("orders.Reconcile", apierr.Internal, err)
	}
	if err := s.st.Write(ctx, store.Put(store.Item{Key: resumeKey, Data: data}, store.Always)); err != nil {
		return apierr.Wrap("orders.Reconcile", apierr.Unavailable, err)
	}
	return nil
}

package orders

import (
	"context"
	"encoding/json"
	"time"

	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
)

// ReconcileAge is how old a pending order must be before the reconciler
// re-queues it: well past the normal enqueue-to-fulfil time, so it rarely
// duplicates a message in flight (duplicates are harmless anyway).
const ReconcileAge = time.Minute

// reconcileLimit bounds one run's query per shard; the next run (a minute
// later) takes the rest.
const reconcileLimit = 200

// ReconcileInterval is how often the reconciler should run.
const ReconcileInterval = time.Minute

// Reconcile re-queues pending orders older than ReconcileAge: the orders
// whose message was lost between the order's commit and the queue send (a
// crash), or whose vendor is slow. It reads only the pending index, a few
// bounded queries, and returns how many orders it re-queued.
func (s *Service) Reconcile(ctx context.Context) (int, error) {
	cutoff := pendingBefore(s.clock().Add(-ReconcileAge))
	n := 0
	for shard := range pendingShards {
		page, err := s.st.Query(ctx, store.Query{Table: store.TableOrders, PK: pendingPK(shard), To: cutoff, Limit: reconcileLimit})
		if err != nil {
			return n, apierr.Wrap("orders.Reconcile", apierr.Unavailable, err)
		}
		for _, it := range page.Items {
			var ref pendingRef
			if err := json.Unmarshal(it.Data, &ref); err != nil {
				s.log.Error("pending index entry malformed", "sk", it.SK)
				continue
			}
			body, _ := json.Marshal(Message(ref))
			if _, err := s.q.Send(ctx, queue.Fulfilment, body, 0); err != nil {
				return n, apierr.Wrap("orders.Reconcile", apierr.Unavailable, err)
			}
			n++
		}
	}
	if n > 0 {
		s.log.Info("reconciler re-queued pending orders", "count", n)
	}
	return n, nil
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

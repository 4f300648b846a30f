package orders

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
)

// stuckOrders places n card orders (10.00 USD each) at the clock's time and
// loses every queue message, as a crash between commit and send would.
func (e *env) stuckOrders(n int) []string {
	e.T.Helper()
	ids := make([]string, 0, n)
	for range n {
		r := e.order(map[string]any{"product_id": pCard})
		require.Equal(e.T, 201, r.Status, string(r.Body))
		ids = append(ids, r.Map(e.T)["id"].(string))
	}
	require.Len(e.T, e.takeQueued(), n)
	return ids
}

// takeQueued receives and deletes every visible fulfilment message and
// returns the order ids they name (with repeats).
func (e *env) takeQueued() []string {
	e.T.Helper()
	ctx := context.Background()
	var out []string
	for {
		msgs, err := e.Deps.Queue.Receive(ctx, queue.Fulfilment, 10, time.Hour, 0)
		require.NoError(e.T, err)
		if len(msgs) == 0 {
			return out
		}
		for _, m := range msgs {
			var msg Message
			require.NoError(e.T, json.Unmarshal(m.Body, &msg))
			out = append(out, msg.OrderID)
			require.NoError(e.T, e.Deps.Queue.Delete(ctx, queue.Fulfilment, m.Receipt))
		}
	}
}

func (e *env) events(typ string) map[string]int {
	e.T.Helper()
	count := map[string]int{}
	q := store.Query{Table: store.TableEvents, PK: "evt#" + e.Account.ID, Limit: store.MaxQueryLimit}
	for {
		page, err := e.Deps.Store.Query(context.Background(), q)
		require.NoError(e.T, err)
		for _, it := range page.Items {
			rec, err := eventlog.Decode(it)
			require.NoError(e.T, err)
			var o Order
			require.NoError(e.T, json.Unmarshal(rec.Data, &o))
			if rec.Type == typ {
				count[o.ID]++
			}
		}
		if q.Cursor = page.Next; q.Cursor == "" {
			return count
		}
	}
}

// TestReconcilerPagesThroughEveryStuckOrder: 300 orders whose messages were
// lost, and a budget of 100 per run in pages of 7: three runs re-queue each
// order exactly once, the second and third continuing where the one before
// stopped (the entries are still pending, so a run that started over would
// re-queue the first hundred again).
func TestReconcilerPagesThroughEveryStuckOrder(t *testing.T) {
	backends(t, func(t *testing.T, st func(testing.TB) store.Store) {
		e := newEnv(t, envOpts{store: st(t)})
		e.deposit(e.Account.ID, "USD", 300*1000)
		start := time.Now().UTC()
		e.Clock.Set(start)
		ids := e.stuckOrders(300)
		ctx := context.Background()

		res, err := e.svc.reconcile(ctx, 7, 100)
		require.NoError(t, err)
		require.Equal(t, ReconcileResult{}, res, "orders younger than ReconcileAge are left alone")

		e.Clock.Set(start.Add(ReconcileAge + time.Second))
		seen := map[string]int{}
		for run := 1; run <= 3; run++ {
			res, err := e.svc.reconcile(ctx, 7, 100)
			require.NoError(t, err)
			require.Equal(t, 100, res.Requeued, "run %d", run)
			require.Zero(t, res.Failed)
			require.Equal(t, run < 3, res.More, "run %d", run)
			for _, id := range e.takeQueued() {
				seen[id]++
			}
		}
		require.Len(t, seen, 300, "every stuck order was re-queued")
		for _, id := range ids {
			require.Equal(t, 1, seen[id], "order %s re-queued once in three runs", id)
		}

		// The next run starts over (the last one finished) and fulfilment
		// then completes every order.
		n, err := e.svc.Reconcile(ctx)
		require.NoError(t, err)
		require.Equal(t, 300, n)
		require.Equal(t, 300, e.drain())
		for _, id := range ids[:5] {
			require.Equal(t, "completed", e.get(id)["status"])
		}
		n, err = e.svc.Reconcile(ctx)
		require.NoError(t, err)
		require.Zero(t, n, "completed orders left the pending index")
	})
}

// TestReconcilerFailsOrdersPastSupplierTimeout: 150 orders placed an hour and
// a minute ago and 150 placed 31 minutes ago, none answered. One pass fails
// and refunds exactly the first 150 (one order.failed event each) and
// re-queues the rest; reconcilers and consumers racing over the same orders
// refund nothing twice.
func TestReconcilerFailsOrdersPastSupplierTimeout(t *testing.T) {
	backends(t, func(t *testing.T, st func(testing.TB) store.Store) {
		e := newEnv(t, envOpts{store: st(t)})
		e.deposit(e.Account.ID, "USD", 300*1000)
		start := time.Now().UTC()
		e.Clock.Set(start)
		old := e.stuckOrders(150)
		e.Clock.Set(start.Add(30 * time.Minute))
		young := e.stuckOrders(150)
		require.EqualValues(t, 0, e.balance(e.Account.ID, "USD"))
		ctx := context.Background()

		e.Clock.Set(start.Add(SupplierTimeout + time.Minute))
		var total ReconcileResult
		for runs := 0; ; runs++ {
			require.Less(t, runs, 4, "300 entries take 4 runs of 100 at most")
			res, err := e.svc.reconcile(ctx, 25, 100)
			require.NoError(t, err)
			total.Failed += res.Failed
			total.Requeued += res.Requeued
			if !res.More {
				break
			}
		}
		assert.Equal(t, 150, total.Failed)
		assert.Equal(t, 150, total.Requeued)
		require.EqualValues(t, 150*1000, e.balance(e.Account.ID, "USD"), "each old order refunded once")
		for _, id := range old {
			o := e.get(id)
			require.Equal(t, "failed", o["status"])
			require.Equal(t, ReasonSupplierTimeout, o["failure_reason"])
		}
		failedEvents := e.events(EventFailed)
		require.Len(t, failedEvents, 150)
		for _, id := range old {
			require.Equal(t, 1, failedEvents[id], "one order.failed event for %s", id)
		}
		requeued := map[string]bool{}
		for _, id := range e.takeQueued() {
			requeued[id] = true
		}
		require.Len(t, requeued, 150)
		for _, id := range young {
			require.True(t, requeued[id])
		}

		// Past the young orders' limit too: four reconcilers and the
		// consumer (with a message per order) race over the same orders.
		e.Clock.Set(start.Add(30*time.Minute + SupplierTimeout + time.Minute))
		for _, id := range young {
			body, _ := json.Marshal(Message{AccountID: e.Account.ID, OrderID: id})
			_, err := e.Deps.Queue.Send(ctx, queue.Fulfilment, body, 0)
			require.NoError(t, err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		failed := 0
		for range 4 {
			wg.Go(func() {
				for {
					res, err := e.svc.reconcile(ctx, 25, 100)
					if !assert.NoError(t, err) {
						return
					}
					mu.Lock()
					failed += res.Failed
					mu.Unlock()
					if !res.More {
						return
					}
				}
			})
		}
		wg.Go(func() { e.drain() })
		wg.Wait()
		assert.LessOrEqual(t, failed, 150)
		require.EqualValues(t, 300*1000, e.balance(e.Account.ID, "USD"), "every order refunded exactly once")
		failedEvents = e.events(EventFailed)
		require.Len(t, failedEvents, 300)
		for id, n := range failedEvents {
			require.Equal(t, 1, n, "one order.failed event for %s", id)
		}
		n, err := e.svc.Reconcile(ctx)
		require.NoError(t, err)
		require.Zero(t, n, "nothing is pending any more")
	})
}

// TestConsumerFailsOrderPastSupplierTimeout: a message that arrives after the
// limit fails the order instead of asking the supplier.
func TestConsumerFailsOrderPastSupplierTimeout(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.deposit(e.Account.ID, "USD", 1000)
	start := time.Now().UTC()
	e.Clock.Set(start)
	r := e.order(map[string]any{"product_id": pCard})
	require.Equal(t, 201, r.Status, string(r.Body))
	id := r.Map(t)["id"].(string)
	e.Clock.Set(start.Add(SupplierTimeout))
	require.Equal(t, 1, e.drain())
	o := e.get(id)
	require.Equal(t, "failed", o["status"])
	require.Equal(t, ReasonSupplierTimeout, o["failure_reason"])
	require.EqualValues(t, 1000, e.balance(e.Account.ID, "USD"))
}

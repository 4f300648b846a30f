package orders

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/gate/catalog"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/sandbox/gatesupplier"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// TestConcurrentOrdersNeverOverdraw: 200 concurrent orders worth four times
// the balance. Exactly the affordable quarter succeed, the rest are refused
// with insufficient_balance (no 409: nobody gives up), and the successes'
// balance_before/balance_after form one unbroken chain from the deposit down
// to zero. serialize=false is the Lambda case (200 instances racing on one
// balance item, no in-process lock); serialize=true is the local gateway's.
func TestConcurrentOrdersNeverOverdraw(t *testing.T) {
	backends(t, func(t *testing.T, st func(testing.TB) store.Store) {
		for _, serial := range []bool{false, true} {
			t.Run("serialize="+strconv.FormatBool(serial), func(t *testing.T) {
				s := st(t)
				e := newEnv(t, envOpts{store: s, serial: serial, ttl: time.Minute})
				const orders, affordable = 200, 50
				e.deposit(e.Account.ID, "USD", affordable*1000)
				type result struct {
					status        int
					code          string
					before, after string
				}
				results := make([]result, orders)
				var busy atomic.Int64
				var wg sync.WaitGroup
				start := make(chan struct{})
				for i := range orders {
					wg.Go(func() {
						<-start
						// A client retries a 409 balance_busy with the same key,
						// as docs/gate.md tells it to: on a loaded machine the
						// ordering budget can run out before every racer is
						// served, and that must never cost money or exactness.
						var r *apitest.Resp
						for try := 0; try < 5; try++ {
							r = e.Do("POST", "/orders", map[string]any{"product_id": pCard}, "Idempotency-Key", fmt.Sprintf("burst-%d", i))
							if eb := r.Err(t); r.Status != 409 || eb == nil || eb["code"] != "balance_busy" {
								break
							}
							busy.Add(1)
						}
						res := result{status: r.Status}
						if r.Status == 201 {
							m := r.Map(t)
							res.before, res.after = m["balance_before"].(string), m["balance_after"].(string)
						} else if e := r.Err(t); e != nil {
							res.code, _ = e["code"].(string)
						}
						results[i] = res
					})
				}
				began := time.Now()
				close(start)
				wg.Wait()
				t.Logf("%d orders in %s (%d balance_busy answers retried)", orders, time.Since(began), busy.Load())

				usd := mustCurrency(t, "USD")
				var afters []int64
				chain := map[int64]int64{}
				for i, r := range results {
					switch r.status {
					case 201:
						b, err := money.ParseDecimalField("", r.before, usd)
						require.NoError(t, err)
						a, err := money.ParseDecimalField("", r.after, usd)
						require.NoError(t, err)
						require.GreaterOrEqual(t, a, int64(0))
						require.Equal(t, b-1000, a)
						_, dup := chain[b]
						require.False(t, dup, "two orders saw balance_before %d", b)
						chain[b] = a
						afters = append(afters, a)
					default:
						require.Equal(t, 400, r.status, "order %d: %+v", i, r)
						require.Equal(t, "insufficient_balance", r.code)
					}
				}
				require.Len(t, afters, affordable)
				sort.Slice(afters, func(i, j int) bool { return afters[i] > afters[j] })
				for i, a := range afters {
					require.Equal(t, int64(affordable-1-i)*1000, a, "balance_after values form the exact chain")
				}
				require.EqualValues(t, 0, e.balance(e.Account.ID, "USD"))
				require.Equal(t, affordable, e.count())
				_, err := e.Deps.Store.Get(context.Background(), leaseKey(e.Account.ID, "USD"))
				require.ErrorIs(t, err, store.ErrNotFound, "every lease holder released the lease")
			})
		}
	})
}

// TestConcurrentSameKey: 50 concurrent requests with one Idempotency-Key
// make one order and one charge; every caller gets that order.
func TestConcurrentSameKey(t *testing.T) {
	backends(t, func(t *testing.T, st func(testing.TB) store.Store) {
		e := newEnv(t, envOpts{store: st(t)})
		e.deposit(e.Account.ID, "USD", 100000)
		const n = 50
		bodies := make([]string, n)
		statuses := make([]int, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				r := e.Do("POST", "/orders", map[string]any{"product_id": pCard, "external_ref": "same"}, "Idempotency-Key", "one-key")
				statuses[i], bodies[i] = r.Status, string(r.Body)
			})
		}
		close(start)
		wg.Wait()
		for i := range n {
			require.Equal(t, 201, statuses[i], bodies[i])
			require.JSONEq(t, bodies[0], bodies[i])
		}
		require.Equal(t, 1, e.count())
		require.EqualValues(t, 99000, e.balance(e.Account.ID, "USD"))
	})
}

// faultyStore fails the first outcome write (the transaction with an event
// record) after the vendor has answered.
type faultyStore struct {
	store.Store
	armed atomic.Bool
}

func (f *faultyStore) Write(ctx context.Context, ops ...store.Op) error {
	for _, op := range ops {
		if op.Item.Table == store.TableEvents && f.armed.CompareAndSwap(true, false) {
			return errors.New("injected: connection reset after the vendor answered")
		}
	}
	return f.Store.Write(ctx, ops...)
}

func sqsEvent(acct, id string, n int) events.SQSEvent {
	body, _ := json.Marshal(Message{AccountID: acct, OrderID: id})
	ev := events.SQSEvent{}
	for i := range n {
		ev.Records = append(ev.Records, events.SQSMessage{MessageId: fmt.Sprintf("m%d", i), ReceiptHandle: "r", Body: string(body),
			Attributes: map[string]string{"ApproximateReceiveCount": "1"}})
	}
	return ev
}

// TestConsumerOneOutcome: a failure after the vendor answered, then the same
// message many times (in one batch and concurrently): one outcome, one
// refund, one event.
func TestConsumerOneOutcome(t *testing.T) {
	backends(t, func(t *testing.T, st func(testing.TB) store.Store) {
		clock := &apitest.Clock{}
		base := st(t)
		if base == nil {
			bs, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), clock.Now)
			require.NoError(t, err)
			t.Cleanup(func() { bs.Close() })
			base = bs
		}
		fs := &faultyStore{Store: base}
		e := &env{}
		e.Env = apitest.NewWith(t, apitest.Options{Store: fs, Clock: clock}, func(d *app.Deps) (httpapi.Group, error) {
			e.svc = New(Config{Store: d.Store, Queue: d.Queue, Test: gatesupplier.New(), Clock: d.Clock, Log: d.Log})
			return e.svc.Group(), nil
		})
		e.led = prepaid.New(base, clock.Now)
		require.NoError(t, catalog.NewRepo(base).Load(context.Background(), e.Account.ID, testCatalog))
		e.deposit(e.Account.ID, "KZT", 100000)
		ctx := context.Background()

		for _, phone := range []string{"+77010000000", "+77011234567"} { // fails, completes
			r := e.order(map[string]any{"product_id": pTopUp, "topup_request": map[string]any{
				"amount": "100.00", "customer_account": map[string]any{"phone_number": phone}}})
			require.Equal(t, 201, r.Status, string(r.Body))
			id := r.Map(t)["id"].(string)

			fs.armed.Store(true)
			resp, err := app.SQSLambda(e.svc.Consume)(ctx, sqsEvent(e.Account.ID, id, 1))
			require.NoError(t, err)
			require.Len(t, resp.BatchItemFailures, 1, "the failed write asks for redelivery")
			require.Equal(t, "pending", e.get(id)["status"])

			resp, err = app.SQSLambda(e.svc.Consume)(ctx, sqsEvent(e.Account.ID, id, 3)) // redelivery, duplicated in the batch
			require.NoError(t, err)
			require.Empty(t, resp.BatchItemFailures)
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() {
					resp, err := app.SQSLambda(e.svc.Consume)(ctx, sqsEvent(e.Account.ID, id, 1))
					require.NoError(t, err)
					require.Empty(t, resp.BatchItemFailures)
				})
			}
			wg.Wait()
		}
		require.EqualValues(t, 90000, e.balance(e.Account.ID, "KZT"), "one refund of the failed order, none for the completed one")
		page, err := base.Query(ctx, store.Query{Table: store.TableEvents, PK: "evt#" + e.Account.ID, Limit: 100})
		require.NoError(t, err)
		var types []string
		for _, it := range page.Items {
			ev, err := eventlog.Decode(it)
			require.NoError(t, err)
			if strings.HasPrefix(ev.Type, "order.") { // the funding deposit wrote deposit.posted
				types = append(types, ev.Type)
			}
		}
		sort.Strings(types)
		require.Equal(t, []string{EventCompleted, EventFailed}, types, "one event per outcome")
	})
}

// TestReconcilerRequeuesLostMessages: an order whose queue message was lost
// (a crash between commit and send) is re-queued once it is a minute old.
func TestReconcilerRequeuesLostMessages(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.deposit(e.Account.ID, "USD", 5000)
	r := e.order(map[string]any{"product_id": pCard})
	require.Equal(t, 201, r.Status)
	id := r.Map(t)["id"].(string)
	// Lose the message: receive and delete it without processing.
	msgs, err := e.Deps.Queue.Receive(context.Background(), "fulfilment", 10, time.Minute, 0)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	require.NoError(t, e.Deps.Queue.Delete(context.Background(), "fulfilment", msgs[0].Receipt))

	n, err := e.svc.Reconcile(context.Background())
	require.NoError(t, err)
	require.Zero(t, n, "a fresh order is left alone")
	e.Clock.Set(time.Now().Add(2 * time.Minute))
	n, err = e.svc.Reconcile(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, n)
	e.drain()
	require.Equal(t, "completed", e.get(id)["status"])
	n, err = e.svc.Reconcile(context.Background())
	require.NoError(t, err)
	require.Zero(t, n, "finished orders leave the pending index")
}

// TestOrdersOfOneBalanceShareCommits: the local gateway's orders of one
// balance are pipelined (each handed to the store under the balance lock, the
// lock released before the verdict), so concurrent orders share commits: on
// the embedded store bbolt commits (group commit), on DynamoDB
// TransactWriteItems calls (the adapter's combining: one debit of the sum, one
// product check, each order's own items). Every fifth client reuses another's
// Idempotency-Key at the same moment, so some combined writes fail on a
// neighbour's key and are judged again alone: still no order is lost or
// duplicated, every replay is its first order, and the chain is exact (every
// balance_before is the previous order's balance_after, down to zero).
func TestOrdersOfOneBalanceShareCommits(t *testing.T) {
	backends(t, func(t *testing.T, st func(testing.TB) store.Store) {
		e := newEnv(t, envOpts{store: st(t), serial: true, ttl: time.Minute})
		const orders, clients = 100, 125 // 25 clients replay another's key
		e.deposit(e.Account.ID, "USD", orders*1000)
		calls := func() (commits, writes int64) {
			switch s := e.Deps.Store.(type) {
			case *boltstore.Store:
				g := s.GroupStats()
				return g.Commits, g.Writes
			case *dynamostore.Store:
				c := s.CombineStats()
				return c.Calls, c.Writes
			}
			t.Fatalf("store %T", e.Deps.Store)
			return 0, 0
		}
		commits0, writes0 := calls()
		type placed struct {
			id            string
			before, after int64
		}
		got := make([]placed, clients)
		var wg sync.WaitGroup
		start := make(chan struct{})
		usd := mustCurrency(t, "USD")
		for i := range clients {
			key := fmt.Sprintf("pipe-%d", i)
			if i >= orders {
				key = fmt.Sprintf("pipe-%d", (i-orders)*4) // the same order, asked for twice at once
			}
			wg.Go(func() {
				<-start
				var r *apitest.Resp
				for try := 0; try < 20; try++ { // a key in flight answers 409: the client retries
					if r = e.Do("POST", "/orders", map[string]any{"product_id": pCard}, "Idempotency-Key", key); r.Status != 409 {
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
				if r.Status != 201 {
					t.Errorf("order %d: %d %s", i, r.Status, r.Body)
					return
				}
				m := r.Map(t)
				b, err1 := money.ParseDecimalField("", m["balance_before"].(string), usd)
				a, err2 := money.ParseDecimalField("", m["balance_after"].(string), usd)
				if err1 != nil || err2 != nil || b-1000 != a {
					t.Errorf("order %d: before %v after %v", i, m["balance_before"], m["balance_after"])
				}
				got[i] = placed{id: m["id"].(string), before: b, after: a}
			})
		}
		began := time.Now()
		close(start)
		wg.Wait()
		took := time.Since(began)
		if t.Failed() {
			return
		}
		for i := orders; i < clients; i++ {
			require.Equal(t, got[(i-orders)*4], got[i], "a replayed key answers its first order")
		}
		byID := map[string]bool{}
		afters := make([]int64, 0, orders)
		for _, p := range got[:orders] {
			require.False(t, byID[p.id], "order %s answered twice", p.id)
			byID[p.id] = true
			afters = append(afters, p.after)
		}
		sort.Slice(afters, func(i, j int) bool { return afters[i] > afters[j] })
		for i, a := range afters {
			require.Equal(t, int64(orders-1-i)*1000, a, "balance_after values form the exact chain")
		}
		require.EqualValues(t, 0, e.balance(e.Account.ID, "USD"))
		commits1, writes1 := calls()
		t.Logf("%d orders (%d requests) in %v: %d store writes in %d commits", orders, clients, took, writes1-writes0, commits1-commits0)
		assert.Less(t, commits1-commits0, int64(orders), "orders of one balance share commits")
	})
}

func mustCurrency(t *testing.T, code string) money.Currency {
	t.Helper()
	c, err := money.ParseCurrency(code)
	require.NoError(t, err)
	return c
}

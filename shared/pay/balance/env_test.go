package balance

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/sandbox/cardprocessor"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/aws/sqsqueue/sqstest"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/pay/splits"
	"github.com/paygate/paygate/shared/pay/transactions"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/sandbox/payoutprocessor"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
	"github.com/paygate/paygate/shared/testkit/ledgertest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// Sandbox payout cards of the tests.
const (
	cardPaid      = "4000056655665556"
	cardPaidMC    = "5200828282828210"
	cardNoFunds   = "4000000000009995"
	cardExpired   = "4000000000000069"
	cardDeclined  = "4000000000000127"
	cardTimeout   = "4000000000000119"
	cardNotSbx    = "4111111111111111"
	expiryYear    = 2030
	payoutCurency = "EUR"
)

type env struct {
	*apitest.Env
	svc  *Service
	proc *payoutprocessor.Sandbox
	pol  ledger.Policy
	n    atomic.Int64
}

// backend is one store and queue pair a test runs on.
type backend struct {
	name  string
	store func(testing.TB) store.Store // nil result: embedded
	queue func(testing.TB) queue.Queue // nil result: embedded
}

var (
	embeddedStore = func(testing.TB) store.Store { return nil }
	dynamoStore   = func(t testing.TB) store.Store { return dynamotest.New(t, nil) }
	embeddedQueue = func(testing.TB) queue.Queue { return nil }
	sqsQueue      = func(t testing.TB) queue.Queue { return sqstest.NewForTest(t, queue.Payouts) }
)

// stores runs f on the embedded store and on DynamoDB Local.
func stores(t *testing.T, f func(t *testing.T, b backend)) {
	for _, b := range []backend{{"embedded", embeddedStore, embeddedQueue}, {"dynamodb", dynamoStore, embeddedQueue}} {
		t.Run(b.name, func(t *testing.T) { f(t, b) })
	}
}

// queues runs f on the store and queue pairings of the consumer: embedded
// and DynamoDB Local, each with the embedded queue and with moto's SQS.
func queues(t *testing.T, f func(t *testing.T, b backend)) {
	for _, b := range []backend{
		{"embedded", embeddedStore, embeddedQueue}, {"dynamodb", dynamoStore, embeddedQueue},
		{"embedded+sqs", embeddedStore, sqsQueue}, {"dynamodb+sqs", dynamoStore, sqsQueue},
	} {
		t.Run(b.name, func(t *testing.T) { f(t, b) })
	}
}

// options tune an env.
type options struct {
	pol   ledger.Policy
	store func(store.Store) store.Store // wraps the store the balance service sees
	more  []apitest.Builder
}

// newEnv serves the balance group, the transactions group (captures and
// refunds, posting with pol) and the split requests over one store.
func newEnv(t testing.TB, b backend, o options) *env {
	t.Helper()
	e := &env{pol: o.pol}
	build := func(d *app.Deps) (httpapi.Group, error) {
		st := d.Store
		if o.store != nil {
			st = o.store(st)
		}
		e.proc = payoutprocessor.New(d.Store, d.Clock)
		e.svc = New(Config{Store: st, Queue: d.Queue, Processor: e.proc, Clock: d.Clock, Log: d.Log})
		return e.svc.Group(), nil
	}
	tx := func(d *app.Deps) (httpapi.Group, error) {
		return transactions.New(transactions.Config{Store: d.Store, Clock: d.Clock, Log: d.Log, Processor: cardprocessor.New(), Ledger: o.pol}).Group(), nil
	}
	sp := func(d *app.Deps) (httpapi.Group, error) {
		return splits.New(splits.Config{Store: d.Store, Clock: d.Clock}).Group(), nil
	}
	e.Env = apitest.NewWith(t, apitest.Options{Store: b.store(t), Queue: b.queue(t)}, append([]apitest.Builder{build, tx, sp}, o.more...)...)
	return e
}

func (e *env) key() string { return fmt.Sprintf("key-%d-%d", time.Now().UnixNano(), e.n.Add(1)) }

// post sends a keyed POST with body.
func (e *env) post(path string, body any) *apitest.Resp {
	e.T.Helper()
	return e.Do("POST", path, body, "Idempotency-Key", e.key())
}

// authorised writes a payment as checkout leaves it (through the payments
// repo: the same SaveOps) for account, and returns its id.
func (e *env) authorised(account string, amount int64, currency, ref string) string {
	e.T.Helper()
	now := e.Clock.Now()
	p := payments.New(payments.Payment{ID: ids.New(), AccountID: account, Amount: amount, Currency: currency,
		PaymentMethod: "visa", Last4: "1111", MerchantReference: ref}, now)
	require.NoError(e.T, p.Transition(payments.Authorized, "", now))
	require.NoError(e.T, payments.NewRepo(e.Deps.Store).Save(context.Background(), p))
	return p.ID
}

// fund authorises and captures a payment of amount through the API: the
// merchant's books get it (available at once under the sandbox's policy).
func (e *env) fund(amount int64, currency string) string {
	e.T.Helper()
	id := e.authorised(e.Account.ID, amount, currency, "order-"+ids.New()[:8])
	r := e.post("/v1/transactions/"+id+"/capture", nil)
	require.Equal(e.T, 200, r.Status, string(r.Body))
	return id
}

// balances reads GET /v1/balance as currency -> row.
func (e *env) balances() map[string]CurrencyBalance {
	e.T.Helper()
	var out struct {
		Data []CurrencyBalance `json:"data"`
	}
	r := e.Do("GET", "/v1/balance", nil)
	require.Equal(e.T, 200, r.Status, string(r.Body))
	r.JSON(e.T, &out)
	m := map[string]CurrencyBalance{}
	for _, b := range out.Data {
		m[b.Currency] = b
	}
	return m
}

// card saves a payout card with number and returns its id.
func (e *env) card(number string) string {
	e.T.Helper()
	r := e.post("/v1/payouts/cards", map[string]any{"number": number, "expiry_month": 3, "expiry_year": expiryYear, "holder_name": "J. Smith"})
	require.Equal(e.T, 201, r.Status, string(r.Body))
	return r.Map(e.T)["id"].(string)
}

func payoutBody(cardID string, value int64) map[string]any {
	return map[string]any{"amount": map[string]any{"value": value, "currency": payoutCurency}, "payout_card_id": cardID, "reference": "payout-1"}
}

// payout requests a payout and returns its id.
func (e *env) payout(cardID string, value int64) string {
	e.T.Helper()
	r := e.post("/v1/payouts", payoutBody(cardID, value))
	require.Equal(e.T, 201, r.Status, string(r.Body))
	require.Equal(e.T, "pending", r.Map(e.T)["status"])
	return r.Map(e.T)["id"].(string)
}

func (e *env) getPayout(id string) map[string]any {
	e.T.Helper()
	r := e.Do("GET", "/v1/payouts/"+id, nil)
	require.Equal(e.T, 200, r.Status, string(r.Body))
	return r.Map(e.T)
}

// drain runs the payouts consumer until the queue has nothing visible.
func (e *env) drain() int {
	e.T.Helper()
	p := &app.Poller{Queue: e.Deps.Queue, Name: queue.Payouts, Handler: app.SQSLambda(e.svc.Consume), Wait: time.Millisecond}
	total := 0
	for {
		res, err := p.Once(context.Background())
		require.NoError(e.T, err)
		if res.Received == 0 {
			return total
		}
		total += res.Received
	}
}

// drainAtLeast drains until n messages were handled, or the liveness bound
// passed: moto's SQS may show a message sent a moment ago only at a later
// receive, where drain's one empty receive would stop.
func (e *env) drainAtLeast(n int) int {
	e.T.Helper()
	deadline := time.Now().Add(30 * time.Second)
	total := e.drain()
	for total < n && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		total += e.drain()
	}
	return total
}

// check runs the ledger check over the account's books and requires no
// difference.
func (e *env) check() ledger.Report {
	e.T.Helper()
	r, err := ledger.Check(context.Background(), e.Deps.Store, e.Account.ID)
	require.NoError(e.T, err)
	require.True(e.T, r.OK(), r.String())
	return r
}

// entriesOf lists the types of the entries tied to a source record.
func (e *env) entriesOf(src ledger.Source) []ledger.EntryType {
	e.T.Helper()
	es, err := ledgertest.EntriesOf(context.Background(), e.Deps.Store, e.Account.ID, src)
	require.NoError(e.T, err)
	var out []ledger.EntryType
	for _, x := range es {
		out = append(out, x.Type)
	}
	return out
}

func errOf(t testing.TB, r *apitest.Resp) (code, param string) {
	t.Helper()
	er := r.Err(t)
	require.NotNil(t, er, string(r.Body))
	p, _ := er["param"].(string)
	return er["code"].(string), p
}

// burst runs n calls at once and returns their answers in call order.
func burst(n int, f func(i int) *apitest.Resp) []*apitest.Resp {
	out := make([]*apitest.Resp, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[i] = f(i)
		}()
	}
	close(start)
	wg.Wait()
	return out
}

// failingStore fails the writes fail picks (a crash at that point: nothing
// of the write is stored), and passes the rest through.
type failingStore struct {
	store.Store
	fail func(ops []store.Op) bool
}

func (f failingStore) Write(ctx context.Context, ops ...store.Op) error {
	if f.fail(ops) {
		return fmt.Errorf("injected: the process died before this write")
	}
	return f.Store.Write(ctx, ops...)
}

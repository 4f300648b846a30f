package wallet

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/sandbox/walletprovider"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/aws/sqsqueue/sqstest"
	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// Test IINs: valid by the two-pass rule (the last needs the second pass).
const (
	iinValid       = "900101300017"
	iinValid2      = "850715401236"
	iinLeapDay     = "000229500424" // 2000-02-29
	iinSecondPass  = "900101310506"
	phoneWaits     = "+77011234567" // no sandbox scenario: waits for a test helper
	approveDelayIn = time.Second    // the tests' "approves after a few seconds"
)

type env struct {
	*apitest.Env
	svc *Service
	n   atomic.Int64
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
	sqsQueue      = func(t testing.TB) queue.Queue { return sqstest.NewForTest(t, queue.WalletConfirmations) }
)

// stores runs f on the embedded store and on DynamoDB Local (embedded queue).
func stores(t *testing.T, f func(t *testing.T, b backend)) {
	for _, b := range []backend{{"embedded", embeddedStore, embeddedQueue}, {"dynamodb", dynamoStore, embeddedQueue}} {
		t.Run(b.name, func(t *testing.T) { f(t, b) })
	}
}

// queues runs f on every store and queue pairing that matters for the
// consumer: embedded/embedded, DynamoDB Local/embedded, embedded/moto SQS,
// DynamoDB Local/moto SQS.
func queues(t *testing.T, f func(t *testing.T, b backend)) {
	for _, b := range []backend{
		{"embedded", embeddedStore, embeddedQueue}, {"dynamodb", dynamoStore, embeddedQueue},
		{"embedded+sqs", embeddedStore, sqsQueue}, {"dynamodb+sqs", dynamoStore, sqsQueue},
	} {
		t.Run(b.name, func(t *testing.T) { f(t, b) })
	}
}

func newEnv(t testing.TB, b backend) *env {
	t.Helper()
	e := &env{}
	build := func(d *app.Deps) (httpapi.Group, error) {
		e.svc = New(Config{Store: d.Store, Queue: d.Queue, Clock: d.Clock, Log: d.Log, Provider: walletprovider.New(approveDelayIn)})
		return e.svc.Group(), nil
	}
	e.Env = apitest.NewWith(t, apitest.Options{Store: b.store(t), Queue: b.queue(t)}, build)
	return e
}

func (e *env) key() string { return fmt.Sprintf("key-%d-%d", time.Now().UnixNano(), e.n.Add(1)) }

func body(phone string, amount any) map[string]any {
	return map[string]any{"amount": amount, "phoneNumber": phone, "iin": iinValid, "orderReference": "order-1", "currency": "KZT"}
}

// authorize posts an authorisation with a fresh key and returns its id.
func (e *env) authorize(phone string, amount int64) string {
	e.T.Helper()
	r := e.Do("POST", "/v1/wallet/authorize", body(phone, amount), "Idempotency-Key", e.key())
	require.Equal(e.T, 200, r.Status, string(r.Body))
	m := r.Map(e.T)
	require.Equal(e.T, "NEW", m["walletTransactionStatus"])
	return m["walletTransactionId"].(string)
}

// post sends a keyed POST with body (nil: none).
func (e *env) post(path string, body any) *apitest.Resp {
	e.T.Helper()
	return e.Do("POST", path, body, "Idempotency-Key", e.key())
}

// succeeded authorises and has the sandbox shopper confirm: a SUCCESS id.
func (e *env) succeeded(amount int64) string {
	e.T.Helper()
	id := e.authorize(phoneWaits, amount)
	r := e.post("/test-helpers/wallet/"+id+"/confirm", nil)
	require.Equal(e.T, 200, r.Status, string(r.Body))
	return id
}

func (e *env) get(id string) map[string]any {
	e.T.Helper()
	r := e.Do("GET", "/v1/wallet/transaction/"+id, nil)
	require.Equal(e.T, 200, r.Status, string(r.Body))
	return r.Map(e.T)
}

func (e *env) status(id string) string { return e.get(id)["walletTransactionStatus"].(string) }

// drain runs the confirmation consumer until the queue has nothing visible.
func (e *env) drain() int {
	e.T.Helper()
	p := &app.Poller{Queue: e.Deps.Queue, Name: queue.WalletConfirmations, Handler: app.SQSLambda(e.svc.Consume), Wait: time.Millisecond}
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

// drainUntil drains the queue until done holds: a message whose handling
// failed under load comes back only after its visibility timeout, later
// than one drain looks.
func (e *env) drainUntil(done func() bool) {
	e.T.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for e.drain(); !done(); e.drain() {
		if time.Now().After(deadline) {
			e.T.Fatal("the queue's messages were not all handled within 60 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// events lists the types of the account's events about one transaction, in
// the order written.
func (e *env) events(accountID, id string) []string {
	e.T.Helper()
	var out []string
	cursor := ""
	for {
		page, err := e.Deps.Store.Query(context.Background(), store.Query{Table: store.TableEvents, PK: "evt#" + accountID, Limit: 100, Cursor: cursor})
		require.NoError(e.T, err)
		for _, it := range page.Items {
			rec, err := eventlog.Decode(it)
			require.NoError(e.T, err)
			require.False(e.T, it.ExpiresAt.IsZero(), "every event record expires")
			ev := struct {
				Type string
				Data Transaction
			}{Type: rec.Type}
			require.NoError(e.T, json.Unmarshal(rec.Data, &ev.Data))
			if ev.Data.WalletTransactionID == id || id == "" {
				out = append(out, ev.Type)
			}
		}
		if cursor = page.Next; cursor == "" {
			return out
		}
	}
}

// count is how many transactions the account has, through the list.
func (e *env) count() int {
	e.T.Helper()
	r := e.Do("GET", "/v1/wallet/transactions?limit=100", nil)
	require.Equal(e.T, 200, r.Status, string(r.Body))
	var page struct {
		Data    []map[string]any `json:"data"`
		HasMore bool             `json:"has_more"`
	}
	r.JSON(e.T, &page)
	require.False(e.T, page.HasMore)
	return len(page.Data)
}

// openEntries is how many entries the open index holds.
func (e *env) openEntries() int {
	e.T.Helper()
	n := 0
	for shard := 0; shard < dueindex.Shards; shard++ {
		page, err := e.Deps.Store.Query(context.Background(), store.Query{Table: store.TablePayments, PK: openIndex.PK(shard), Limit: 1000})
		require.NoError(e.T, err)
		n += len(page.Items)
	}
	return n
}

// queued is how many confirmation messages are visible now (received and
// released at once, so the test can still drain them).
func (e *env) queued() int {
	e.T.Helper()
	ctx := context.Background()
	n := 0
	for {
		msgs, err := e.Deps.Queue.Receive(ctx, queue.WalletConfirmations, 10, time.Minute, 0)
		require.NoError(e.T, err)
		if len(msgs) == 0 {
			break
		}
		n += len(msgs)
		for _, m := range msgs {
			defer func() {
				require.NoError(e.T, e.Deps.Queue.ChangeVisibility(ctx, queue.WalletConfirmations, m.Receipt, 0))
			}()
		}
	}
	return n
}

func errParam(t testing.TB, r *apitest.Resp) (code, param string) {
	t.Helper()
	er := r.Err(t)
	require.NotNil(t, er, string(r.Body))
	p, _ := er["param"].(string)
	return er["code"].(string), p
}

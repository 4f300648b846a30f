package beneficiaries

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/sandbox/bank"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/aws/sqsqueue/sqstest"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/kzid"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
	"github.com/paygate/paygate/shared/testkit/ledgertest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// Identifiers of the tests (their check digits are right).
const (
	iinPerson  = "900101300017"
	binCompany = "971240001315"
	bicKaspi   = "CASPKZKA"
)

// Sandbox bank IBANs.
var (
	ibanPaid     = kzid.IBAN(bank.Code, "0000000000001")
	ibanClosed   = kzid.IBAN(bank.Code, "0000000000002")
	ibanMismatch = kzid.IBAN(bank.Code, "0000000000003")
	ibanSlow     = kzid.IBAN(bank.Code, "0000000000004")
	ibanNoAnswer = kzid.IBAN(bank.Code, "0000000000005")
	ibanOther    = "KZ86125KZT5004100100"
)

type env struct {
	*apitest.Env
	svc  *Service
	bank *bank.Sandbox
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
	sqsQueue      = func(t testing.TB) queue.Queue { return sqstest.NewForTest(t, queue.PaymentOrders) }
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
	store func(store.Store) store.Store // wraps the store the service sees
	more  []apitest.Builder
}

func newEnv(t testing.TB, b backend, o options) *env {
	t.Helper()
	e := &env{}
	build := func(d *app.Deps) (httpapi.Group, error) {
		st := d.Store
		if o.store != nil {
			st = o.store(st)
		}
		e.bank = bank.New(d.Store, d.Clock)
		e.svc = New(Config{Store: st, Queue: d.Queue, Bank: e.bank, Clock: d.Clock, Log: d.Log})
		return e.svc.Group(), nil
	}
	e.Env = apitest.NewWith(t, apitest.Options{Store: b.store(t), Queue: b.queue(t)}, append([]apitest.Builder{build}, o.more...)...)
	return e
}

func (e *env) key() string { return fmt.Sprintf("key-%d-%d", time.Now().UnixNano(), e.n.Add(1)) }

// post sends a keyed POST with body.
func (e *env) post(path string, body any) *apitest.Resp {
	e.T.Helper()
	return e.Do("POST", path, body, "Idempotency-Key", e.key())
}

// fund credits the account's available balance as a capture does (a
// capture's entries, written through the ledger), in currency.
func (e *env) fund(account string, amount int64, currency string) {
	e.T.Helper()
	now := e.Clock.Now()
	var b ledger.Batch
	b.Capture(ledger.Policy{}, ledger.Capture{AccountID: account, Currency: currency,
		Source: ledger.Source{Type: ledger.SourceTransaction, ID: ids.New()}, Amount: amount}, now)
	ops, err := b.Ops(now)
	require.NoError(e.T, err)
	require.NoError(e.T, e.Deps.Store.Write(context.Background(), ops...))
}

func personBody(iban string) map[string]any {
	return map[string]any{"name": "Aigerim Sarsenova", "type": "person", "iin": iinPerson, "iban": iban, "bic": bicKaspi, "kbe": "19",
		"email": "aigerim@example.kz"}
}

func companyBody(iban string) map[string]any {
	return map[string]any{"name": "Kaspi Courier LLP", "type": "company", "bin": binCompany, "iban": iban, "bic": "HSBKKZKX", "kbe": "17"}
}

// beneficiary registers a beneficiary with body and returns its id.
func (e *env) beneficiary(body map[string]any) string {
	e.T.Helper()
	r := e.post("/v1/merchants/beneficiaries", body)
	require.Equal(e.T, 201, r.Status, string(r.Body))
	return r.Map(e.T)["id"].(string)
}

// distribute makes a distribution of lines (beneficiary -> amount) in
// currency and returns the answer.
func (e *env) distribute(currency string, lines map[string]int64) *apitest.Resp {
	e.T.Helper()
	var ls []any
	for id, v := range lines {
		ls = append(ls, map[string]any{"beneficiary_id": id, "amount": map[string]any{"value": v, "currency": currency}})
	}
	return e.post("/v1/distributions", map[string]any{"reference": "dist-" + ids.New()[:8], "lines": ls})
}

// credit funds the merchant and distributes amount to one beneficiary.
func (e *env) credit(ben string, amount int64, currency string) {
	e.T.Helper()
	e.fund(e.Account.ID, amount, currency)
	r := e.distribute(currency, map[string]int64{ben: amount})
	require.Equal(e.T, 201, r.Status, string(r.Body))
}

func orderBody(ben string, value int64, requestID string) map[string]any {
	return map[string]any{"beneficiary_id": ben, "amount": map[string]any{"value": value, "currency": "KZT"}, "purpose_code": "119",
		"description": "Payout for May deliveries", "request_id": requestID}
}

func (e *env) getOrder(id string) map[string]any {
	e.T.Helper()
	r := e.Do("GET", "/v1/merchants/settlement-payment-orders/"+id, nil)
	require.Equal(e.T, 200, r.Status, string(r.Body))
	return r.Map(e.T)
}

// drain runs the payment orders consumer until the queue has nothing visible.
func (e *env) drain() int {
	e.T.Helper()
	p := &app.Poller{Queue: e.Deps.Queue, Name: queue.PaymentOrders, Handler: app.SQSLambda(e.svc.Consume), Wait: time.Millisecond}
	total := 0
	for first := true; ; first = false {
		res, err := p.Once(context.Background())
		require.NoError(e.T, err)
		if res.Received == 0 && first {
			// A queue under load (moto, beside the whole suite) can answer
			// a short poll empty just after a send: one long poll settles it.
			long := *p
			long.Wait = time.Second
			res, err = long.Once(context.Background())
			require.NoError(e.T, err)
		}
		if res.Received == 0 {
			return total
		}
		total += res.Received
	}
}

// bal reads a balance of the account's books.
func (e *env) bal(account, currency string, a ledger.Account) int64 {
	e.T.Helper()
	total := ledgertest.BalanceOf
	if a.External() {
		total = ledgertest.ExternalTotal
	}
	n, err := total(context.Background(), e.Deps.Store, account, currency, a)
	require.NoError(e.T, err)
	return n
}

// check runs the ledger check over the account's books and requires no
// difference.
func (e *env) check(account string) ledger.Report {
	e.T.Helper()
	r, err := ledger.Check(context.Background(), e.Deps.Store, account)
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

// other is a second test-mode account with its own key.
func (e *env) other() (*accounts.Account, string) {
	e.T.Helper()
	return e.NewAccount(accounts.Test)
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

// holdsEntry reports whether ops write a ledger entry of type t.
func holdsEntry(ops []store.Op, t ledger.EntryType) bool {
	for _, op := range ops {
		if op.Kind == store.OpPut && op.Item.Table == store.TableLedger && len(op.Item.PK) > 5 && op.Item.PK[:5] == "ment#" {
			if e, err := ledger.DecodeEntry(op.Item); err == nil && e.Type == t {
				return true
			}
		}
	}
	return false
}

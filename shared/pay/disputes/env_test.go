package disputes

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/sandbox/cardprocessor"

	"github.com/paygate/paygate/shared/sandbox/issuer"

	"github.com/paygate/paygate/shared/sandbox/payoutprocessor"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/pay/balance"
	"github.com/paygate/paygate/shared/pay/transactions"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// backend is one store a test runs on.
type backend struct {
	name  string
	store func(testing.TB, func() time.Time) store.Store // nil result: embedded
}

// stores runs f on the embedded store and on DynamoDB Local.
func stores(t *testing.T, f func(t *testing.T, b backend)) {
	for _, b := range []backend{
		{"embedded", func(testing.TB, func() time.Time) store.Store { return nil }},
		{"dynamodb", func(t testing.TB, now func() time.Time) store.Store { return dynamotest.New(t, now) }},
	} {
		t.Run(b.name, func(t *testing.T) { f(t, b) })
	}
}

type env struct {
	*apitest.Env
	svc *Service
	n   atomic.Int64
}

// newEnv serves the disputes, the transactions (to read and refund the
// disputed payments) and the merchant balance, over b's store, with a
// frozen clock.
func newEnv(t testing.TB, b backend) *env {
	t.Helper()
	e := &env{}
	clock := &apitest.Clock{}
	clock.Set(time.Now().UTC().Truncate(time.Millisecond))
	build := func(d *app.Deps) (httpapi.Group, error) {
		e.svc = New(Config{Store: d.Store, Clock: d.Clock, Log: d.Log, Fee: DefaultFee, Desk: issuer.New()})
		return e.svc.Group(), nil
	}
	txs := func(d *app.Deps) (httpapi.Group, error) {
		return transactions.New(transactions.Config{Store: d.Store, Clock: d.Clock, Log: d.Log, Processor: cardprocessor.New()}).Group(), nil
	}
	bal := func(d *app.Deps) (httpapi.Group, error) {
		return balance.New(balance.Config{Store: d.Store, Queue: d.Queue, Clock: d.Clock, Log: d.Log, Processor: payoutprocessor.New(d.Store, d.Clock)}).Group(), nil
	}
	e.Env = apitest.NewWith(t, apitest.Options{Store: b.store(t, clock.Now), Clock: clock}, build, txs, bal)
	return e
}

func (e *env) key() string { return fmt.Sprintf("key-%d-%d", time.Now().UnixNano(), e.n.Add(1)) }

// post sends a keyed POST with body (nil: none).
func (e *env) post(path string, body any, headers ...string) *apitest.Resp {
	e.T.Helper()
	return e.Do("POST", path, body, append([]string{"Idempotency-Key", e.key()}, headers...)...)
}

// payment seeds a card payment as checkout leaves it, captured in full
// (status charged) unless captured says less, through the payments repo:
// its capture posts to the merchant's books (available, in the sandbox).
func (e *env) payment(account string, amount, captured int64) string {
	e.T.Helper()
	if account == "" {
		account = e.Account.ID
	}
	now := e.Clock.Now()
	p := payments.New(payments.Payment{ID: ids.New(), AccountID: account, Amount: amount, Currency: "EUR",
		PaymentMethod: "visa", Last4: "1111", MerchantReference: "order-" + ids.New()[:8], Metadata: map[string]string{}}, now)
	require.NoError(e.T, p.Transition(payments.Authorized, "", now))
	if captured > 0 {
		require.NoError(e.T, p.Capture(payments.Op{Amount: &captured}, now))
	}
	require.NoError(e.T, payments.NewRepo(e.Deps.Store).Save(context.Background(), p))
	return p.ID
}

// open opens a dispute on tx (body nil: the defaults) and returns it.
func (e *env) open(tx string, body any) map[string]any {
	e.T.Helper()
	r := e.post("/test-helpers/transactions/"+tx+"/dispute", body)
	require.Equal(e.T, 201, r.Status, "%s", r.Body)
	return r.Map(e.T)
}

func (e *env) get(id string) map[string]any {
	e.T.Helper()
	r := e.Do("GET", "/v1/disputes/"+id, nil)
	require.Equal(e.T, 200, r.Status, "%s", r.Body)
	return r.Map(e.T)
}

func (e *env) tx(id string) map[string]any {
	e.T.Helper()
	r := e.Do("GET", "/v1/transactions/"+id, nil)
	require.Equal(e.T, 200, r.Status, "%s", r.Body)
	return r.Map(e.T)
}

// bal is the EUR balance as GET /v1/balance shows it.
func (e *env) bal() map[string]int64 {
	e.T.Helper()
	r := e.Do("GET", "/v1/balance", nil)
	require.Equal(e.T, 200, r.Status, "%s", r.Body)
	out := map[string]int64{}
	for _, row := range r.Map(e.T)["data"].([]any) {
		m := row.(map[string]any)
		if m["currency"] != "EUR" {
			continue
		}
		for _, k := range []string{"available", "pending", "reserved", "disputed", "owed"} {
			out[k] = int64(m[k].(float64))
		}
	}
	return out
}

// checkBooks runs the ledger's re-derivation check on the account.
func (e *env) checkBooks(account string) {
	e.T.Helper()
	r, err := ledger.Check(context.Background(), e.Deps.Store, account)
	require.NoError(e.T, err)
	assert.True(e.T, r.OK(), "ledger check: %s", r)
}

// sweep runs the sweeper once.
func (e *env) sweep() int {
	e.T.Helper()
	n, err := e.svc.Sweep(context.Background())
	require.NoError(e.T, err)
	return n
}

// events lists the types of the account's dispute events about one
// dispute, in the order written.
func (e *env) events(id string) []string {
	e.T.Helper()
	var out []string
	cursor := ""
	for {
		page, err := e.Deps.Store.Query(context.Background(), store.Query{Table: store.TableEvents, PK: "evt#" + e.Account.ID, Limit: 100, Cursor: cursor})
		require.NoError(e.T, err)
		for _, it := range page.Items {
			var ev struct {
				Type string `json:"type"`
				Data struct {
					ID     string `json:"id"`
					Object string `json:"object"`
				} `json:"data"`
			}
			require.NoError(e.T, json.Unmarshal(it.Data, &ev))
			if ev.Data.ID == id && ev.Data.Object == Kind {
				out = append(out, ev.Type)
			}
		}
		if cursor = page.Next; cursor == "" {
			return out
		}
	}
}

// chunks counts the stored evidence chunks of a dispute.
func (e *env) chunks(account, id string) int {
	e.T.Helper()
	n, cursor := 0, ""
	for {
		page, err := e.Deps.Store.Query(context.Background(), store.Query{Table: store.TablePayments, PK: docPK(account, id), Limit: 100, Cursor: cursor})
		require.NoError(e.T, err)
		n += len(page.Items)
		if cursor = page.Next; cursor == "" {
			return n
		}
	}
}

func errOf(t testing.TB, r *apitest.Resp) (code, param string) {
	t.Helper()
	er := r.Err(t)
	require.NotNil(t, er, "%s", r.Body)
	p, _ := er["param"].(string)
	return er["code"].(string), p
}

// doc is an evidence document of the given type holding text.
func doc(name, contentType string, content []byte) map[string]any {
	return map[string]any{"name": name, "content_type": contentType, "data": base64.StdEncoding.EncodeToString(content)}
}

// pdf is a small PDF-looking document holding text.
func pdf(text string) []byte { return []byte("%PDF-1.4\n% " + text + "\n%%EOF\n") }

// sized is a PDF of exactly n bytes.
func sized(n int, fill byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = fill
	}
	copy(b, "%PDF-1.4\n")
	return b
}

// burst runs n calls at once and returns their answers by index.
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

func num(v any) int64 { return int64(v.(float64)) }

package transactions

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/sandbox/cardprocessor"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

type env struct {
	*apitest.Env
	svc  *Service
	proc *recorder
	n    atomic.Int64
}

// recorder is the sandbox card processor, recording the modifications it
// received (in order) and failing them with fail while fail is set.
type recorder struct {
	cards.Processor
	mu       sync.Mutex
	received []recorded
	fail     error
	attempts int
}

type recorded struct {
	Kind string
	cards.Modification
}

func (r *recorder) take(kind string, m cards.Modification) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.attempts++
	if r.fail != nil {
		return r.fail
	}
	r.received = append(r.received, recorded{kind, m})
	return nil
}

func (r *recorder) Capture(_ context.Context, m cards.Modification) error {
	return r.take("capture", m)
}
func (r *recorder) Cancel(_ context.Context, m cards.Modification) error { return r.take("cancel", m) }
func (r *recorder) Refund(_ context.Context, m cards.Modification) error { return r.take("refund", m) }

// got is what the processor received so far.
func (r *recorder) got() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recorded(nil), r.received...)
}

// failWith makes every modification fail with err (nil: succeed again).
func (r *recorder) failWith(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fail = err
}

// backend is one store a test runs on (nil: embedded).
type backend struct {
	name  string
	store func(testing.TB) store.Store
}

// stores runs f on the embedded store and on DynamoDB Local.
func stores(t *testing.T, f func(t *testing.T, b backend)) {
	for _, b := range []backend{
		{"embedded", func(testing.TB) store.Store { return nil }},
		{"dynamodb", func(t testing.TB) store.Store { return dynamotest.New(t, nil) }},
	} {
		t.Run(b.name, func(t *testing.T) { f(t, b) })
	}
}

func newEnv(t testing.TB, b backend, more ...apitest.Builder) *env {
	t.Helper()
	e := &env{proc: &recorder{Processor: cardprocessor.New()}}
	build := func(d *app.Deps) (httpapi.Group, error) {
		e.svc = New(Config{Store: d.Store, Clock: d.Clock, Log: d.Log, Processor: e.proc})
		return e.svc.Group(), nil
	}
	e.Env = apitest.NewWith(t, apitest.Options{Store: b.store(t)}, append([]apitest.Builder{build}, more...)...)
	return e
}

func (e *env) key() string { return fmt.Sprintf("key-%d-%d", time.Now().UnixNano(), e.n.Add(1)) }

// post sends a keyed POST with body (nil: none).
func (e *env) post(path string, body any) *apitest.Resp {
	e.T.Helper()
	return e.Do("POST", path, body, "Idempotency-Key", e.key())
}

// seed is a payment as checkout leaves it, written through the payments
// repo (the same SaveOps: indexes and events), moved to status.
type seed struct {
	account  string
	amount   int64
	currency string
	ref      string
	status   payments.Status
	customer string
	link     string
	captured int64 // charged: how much
}

func (e *env) seed(s seed) string {
	e.T.Helper()
	if s.account == "" {
		s.account = e.Account.ID
	}
	if s.amount == 0 {
		s.amount = 10000
	}
	if s.currency == "" {
		s.currency = "EUR"
	}
	if s.ref == "" {
		s.ref = "order-" + ids.New()[:8]
	}
	now := e.Clock.Now()
	p := payments.New(payments.Payment{ID: ids.New(), AccountID: s.account, Amount: s.amount, Currency: s.currency,
		PaymentMethod: "visa", Last4: "1111", MerchantReference: s.ref, CustomerID: s.customer, PaymentLinkID: s.link,
		Metadata: map[string]string{"k": "v"}}, now)
	switch s.status {
	case payments.Created:
	case payments.RequiresAction:
		require.NoError(e.T, p.Transition(payments.RequiresAction, "3-D Secure challenge", now))
	case payments.Rejected:
		require.NoError(e.T, p.Transition(payments.Rejected, "Refused", now))
	case payments.Authorized, "":
		require.NoError(e.T, p.Transition(payments.Authorized, "", now))
	case payments.Charged:
		require.NoError(e.T, p.Transition(payments.Authorized, "", now))
		amt := s.captured
		if amt == 0 {
			amt = s.amount
		}
		require.NoError(e.T, p.Capture(payments.Op{Amount: &amt}, now))
	default:
		e.T.Fatalf("seed: status %s", s.status)
	}
	require.NoError(e.T, payments.NewRepo(e.Deps.Store).Save(context.Background(), p))
	return p.ID
}

func (e *env) get(id string) map[string]any {
	e.T.Helper()
	r := e.Do("GET", "/v1/transactions/"+id, nil)
	require.Equal(e.T, 200, r.Status, string(r.Body))
	return r.Map(e.T)
}

// events lists the types of the account's events about one payment, in the
// order written (event ids are time-ordered).
func (e *env) events(id string) []string {
	e.T.Helper()
	var out []string
	cursor := ""
	for {
		page, err := e.Deps.Store.Query(context.Background(), store.Query{Table: store.TableEvents, PK: "evt#" + e.Account.ID, Limit: 100, Cursor: cursor})
		require.NoError(e.T, err)
		for _, it := range page.Items {
			ev := paymentEvent(e.T, it)
			if ev.Data.ID == id {
				out = append(out, ev.Type)
			}
		}
		if cursor = page.Next; cursor == "" {
			return out
		}
	}
}

func errParam(t testing.TB, r *apitest.Resp) (code, param, message string) {
	t.Helper()
	er := r.Err(t)
	require.NotNil(t, er, string(r.Body))
	p, _ := er["param"].(string)
	return er["code"].(string), p, er["message"].(string)
}

var nilStore = func(testing.TB) store.Store { return nil }

// expiryEntries counts the expiry index's entries.
// modificationEntries counts the modifications' due entries of every shard:
// those the processor has not yet received.
func (e *env) modificationEntries() int {
	e.T.Helper()
	n := 0
	for shard := 0; shard < dueindex.Shards; shard++ {
		page, err := e.Deps.Store.Query(context.Background(), store.Query{Table: store.TablePayments, PK: payments.ModificationIndex.PK(shard), Limit: 1000})
		require.NoError(e.T, err)
		n += len(page.Items)
	}
	return n
}

func (e *env) expiryEntries() int {
	e.T.Helper()
	n := 0
	for shard := 0; shard < dueindex.Shards; shard++ {
		page, err := e.Deps.Store.Query(context.Background(), store.Query{Table: store.TablePayments, PK: payments.ExpiryIndex.PK(shard), Limit: 1000})
		require.NoError(e.T, err)
		n += len(page.Items)
	}
	return n
}

// paymentEvent reads a payment's event record (with its expiry, as every
// event record has).
func paymentEvent(t testing.TB, it store.Item) (ev struct {
	Type string
	Data payments.Payment
}) {
	t.Helper()
	rec, err := eventlog.Decode(it)
	require.NoError(t, err)
	require.False(t, it.ExpiresAt.IsZero(), "every event record expires")
	ev.Type = rec.Type
	require.NoError(t, json.Unmarshal(rec.Data, &ev.Data))
	return ev
}

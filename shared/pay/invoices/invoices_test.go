package invoices

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
	"github.com/paygate/paygate/shared/testkit/ledgertest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

type env struct {
	*apitest.Env
	svc *Service
	n   atomic.Int64
}

type backend struct {
	name  string
	store func(testing.TB) store.Store // nil result: embedded
}

func stores(t *testing.T, f func(t *testing.T, b backend)) {
	for _, b := range []backend{
		{"embedded", func(testing.TB) store.Store { return nil }},
		{"dynamodb", func(t testing.TB) store.Store { return dynamotest.New(t, nil) }},
	} {
		t.Run(b.name, func(t *testing.T) { f(t, b) })
	}
}

func newEnv(t testing.TB, b backend, pol ledger.Policy, more ...apitest.Builder) *env {
	t.Helper()
	e := &env{}
	build := func(d *app.Deps) (httpapi.Group, error) {
		e.svc = New(Config{Store: d.Store, Clock: d.Clock, Log: d.Log, Ledger: pol})
		return e.svc.Group(), nil
	}
	e.Env = apitest.NewWith(t, apitest.Options{Store: b.store(t)}, append([]apitest.Builder{build}, more...)...)
	return e
}

func (e *env) key() string { return fmt.Sprintf("key-%d-%d", time.Now().UnixNano(), e.n.Add(1)) }

func (e *env) post(path string, body any) *apitest.Resp {
	e.T.Helper()
	return e.Do("POST", path, body, "Idempotency-Key", e.key())
}

func invoiceBody(value int64) map[string]any {
	return map[string]any{"amount": map[string]any{"value": value, "currency": "KZT"}, "payer": map[string]any{"phone": "+77011234567"},
		"description": "Order 42: two bags of coffee", "order_reference": "order-42"}
}

func (e *env) invoice(body map[string]any) map[string]any {
	e.T.Helper()
	r := e.post("/v1/invoices", body)
	require.Equal(e.T, 201, r.Status, string(r.Body))
	return r.Map(e.T)
}

func (e *env) bal(currency string, a ledger.Account) int64 {
	e.T.Helper()
	total := ledgertest.BalanceOf
	if a.External() {
		total = ledgertest.ExternalTotal
	}
	n, err := total(context.Background(), e.Deps.Store, e.Account.ID, currency, a)
	require.NoError(e.T, err)
	return n
}

func (e *env) check() {
	e.T.Helper()
	r, err := ledger.Check(context.Background(), e.Deps.Store, e.Account.ID)
	require.NoError(e.T, err)
	require.True(e.T, r.OK(), r.String())
}

func (e *env) events() []string {
	e.T.Helper()
	page, err := e.Deps.Store.Query(context.Background(), store.Query{Table: store.TableEvents, PK: "evt#" + e.Account.ID, Limit: 1000})
	require.NoError(e.T, err)
	var out []string
	for _, it := range page.Items {
		ev, err := eventlog.Decode(it)
		require.NoError(e.T, err)
		require.False(e.T, it.ExpiresAt.IsZero(), "every event record expires")
		out = append(out, ev.Type)
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

func count(xs []string, x string) int {
	n := 0
	for _, v := range xs {
		if v == x {
			n++
		}
	}
	return n
}

// TestInvoicePaidCreditsTheLedger: an invoice is created (24 h by default,
// nothing moves), read and listed; the sandbox pays it: paid, invoice.paid,
// and its amount the merchant's as a capture's (bank -> pending -> available
// at once in the sandbox); a replay of the payment pays nothing more; on
// both stores.
func TestInvoicePaidCreditsTheLedger(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, ledger.Policy{})
		body := invoiceBody(150000)
		body["line_items"] = []any{map[string]any{"name": "Coffee beans 1 kg", "quantity": 2, "unit_amount": 70000},
			map[string]any{"name": "Delivery", "quantity": 1, "unit_amount": 10000}}
		body["metadata"] = map[string]any{"crm": "A-1"}
		inv := e.invoice(body)
		id := inv["id"].(string)
		assert.Equal(t, "invoice", inv["object"])
		assert.Equal(t, "created", inv["status"])
		assert.Equal(t, map[string]any{"phone": "+77011234567"}, inv["payer"])
		created, _ := time.Parse(time.RFC3339, inv["created_at"].(string))
		expires, _ := time.Parse(time.RFC3339, inv["expires_at"].(string))
		assert.WithinDuration(t, created.Add(24*time.Hour), expires, time.Second, "24 h by default")
		assert.EqualValues(t, 140000, inv["line_items"].([]any)[0].(map[string]any)["amount"])
		assert.EqualValues(t, 0, e.bal("KZT", ledger.Available), "nothing moves at creation")

		key := e.key()
		r := e.Do("POST", "/test-helpers/invoices/"+id+"/pay", nil, "Idempotency-Key", key)
		require.Equal(t, 200, r.Status, string(r.Body))
		paid := r.Map(t)
		assert.Equal(t, "paid", paid["status"])
		assert.NotEmpty(t, paid["paid_at"])
		r = e.Do("POST", "/test-helpers/invoices/"+id+"/pay", nil, "Idempotency-Key", key)
		require.Equal(t, 200, r.Status)
		assert.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))
		assert.EqualValues(t, 150000, e.bal("KZT", ledger.Available), "settled at once in the sandbox, once")
		assert.EqualValues(t, -150000, e.bal("KZT", ledger.Bank))
		es, err := ledgertest.EntriesOf(context.Background(), e.Deps.Store, e.Account.ID, ledger.Source{Type: ledger.SourceInvoice, ID: id})
		require.NoError(t, err)
		require.Len(t, es, 1, "the payment, settled at once: one entry")
		assert.Equal(t, []ledger.Posting{{Account: ledger.Bank, Amount: -150000}, {Account: ledger.Available, Amount: 150000}}, es[0].Postings)
		assert.Equal(t, 1, count(e.events(), EventPaid))

		got := e.Do("GET", "/v1/invoices/"+id, nil).Map(t)
		assert.Equal(t, "paid", got["status"])
		var list struct {
			Data []map[string]any `json:"data"`
		}
		e.Do("GET", "/v1/invoices?status=paid&order_reference=order-42", nil).JSON(t, &list)
		require.Len(t, list.Data, 1)
		e.Do("GET", "/v1/invoices?status=created", nil).JSON(t, &list)
		assert.Empty(t, list.Data)
		r = e.Do("GET", "/v1/invoices/"+id, nil, "Service-Version", "2023-09-01")
		require.Equal(t, 200, r.Status, string(r.Body))
		assert.NotContains(t, r.Map(t), "metadata", "before 2024-01-15 resources carry no metadata")
		e.check()
	})
}

// TestInvoiceSettlesAfterTheDelay: with a settlement delay a paid invoice's
// amount is pending (less the fee) until the settlement task runs after
// it, as a capture's.
func TestInvoiceSettlesAfterTheDelay(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, ledger.Policy{SettlementDelay: time.Hour, FeeBps: 100})
		id := e.invoice(invoiceBody(10000))["id"].(string)
		require.Equal(t, 200, e.post("/test-helpers/invoices/"+id+"/pay", nil).Status)
		assert.EqualValues(t, 9900, e.bal("KZT", ledger.Pending))
		assert.EqualValues(t, 100, e.bal("KZT", ledger.Fees))
		assert.EqualValues(t, 0, e.bal("KZT", ledger.Available))
		n, err := ledger.Settle(context.Background(), e.Deps.Store, e.Clock.Now().Add(time.Hour))
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		assert.EqualValues(t, 9900, e.bal("KZT", ledger.Available))
		e.check()
	})
}

// TestInvoicePaidTwiceOrAfterExpiry: paying an invoice twice (with another
// key), ten payments at once, or paying it after expires_at (before the
// expirer ran, and after) make one payment or a 409, never two; on both
// stores.
func TestInvoicePaidTwiceOrAfterExpiry(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, ledger.Policy{})
		id := e.invoice(invoiceBody(5000))["id"].(string)
		require.Equal(t, 200, e.post("/test-helpers/invoices/"+id+"/pay", nil).Status)
		r := e.post("/test-helpers/invoices/"+id+"/pay", nil)
		require.Equal(t, 409, r.Status, string(r.Body))
		code, _ := errOf(t, r)
		assert.Equal(t, "invoice_already_paid", code)
		assert.EqualValues(t, 5000, e.bal("KZT", ledger.Available), "one payment")

		id2 := e.invoice(invoiceBody(7000))["id"].(string)
		var ok, conflict atomic.Int64
		var wg sync.WaitGroup
		for i := 0; i < 10; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				switch r := e.post("/test-helpers/invoices/"+id2+"/pay", map[string]any{}); r.Status {
				case 200:
					ok.Add(1)
				case 409:
					conflict.Add(1)
				default:
					t.Errorf("unexpected %d: %s", r.Status, r.Body)
				}
			}()
		}
		wg.Wait()
		assert.EqualValues(t, 1, ok.Load())
		assert.EqualValues(t, 9, conflict.Load())
		assert.EqualValues(t, 12000, e.bal("KZT", ledger.Available), "one payment each")

		body := invoiceBody(3000)
		body["expires_at"] = e.Clock.Now().Add(2 * time.Minute).UTC().Format(time.RFC3339)
		late := e.invoice(body)["id"].(string)
		e.Clock.Advance(3 * time.Minute)
		assert.Equal(t, "expired", e.Do("GET", "/v1/invoices/"+late, nil).Map(t)["status"], "checked in code before the expirer ran")
		r = e.post("/test-helpers/invoices/"+late+"/pay", nil)
		require.Equal(t, 409, r.Status, string(r.Body))
		code, _ = errOf(t, r)
		assert.Equal(t, "invoice_expired", code)
		res, err := e.svc.Expire(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1, res.Expired)
		r = e.post("/test-helpers/invoices/"+late+"/pay", nil)
		require.Equal(t, 409, r.Status, string(r.Body))
		code, _ = errOf(t, r)
		assert.Equal(t, "invoice_expired", code)
		assert.EqualValues(t, 12000, e.bal("KZT", ledger.Available), "no payment after expiry")
		assert.Equal(t, 2, count(e.events(), EventPaid))
		e.check()
	})
}

// TestInvoiceExpirer: the expirer marks the due invoices expired with one
// invoice.expired each (runs racing included), leaves the others, drops the
// entries of invoices that ended otherwise, and a payment racing it makes
// one ending; on both stores.
func TestInvoiceExpirer(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, ledger.Policy{})
		now := e.Clock.Now()
		e.Clock.Set(now)
		soon := func(d time.Duration) map[string]any {
			body := invoiceBody(1000)
			body["expires_at"] = now.Add(d).UTC().Format(time.RFC3339)
			return body
		}
		var due []string
		for i := 0; i < 5; i++ {
			due = append(due, e.invoice(soon(2 * time.Minute))["id"].(string))
		}
		later := e.invoice(soon(time.Hour))["id"].(string)
		paid := e.invoice(soon(2 * time.Minute))["id"].(string)
		require.Equal(t, 200, e.post("/test-helpers/invoices/"+paid+"/pay", nil).Status)
		cancelled := e.invoice(soon(2 * time.Minute))["id"].(string)
		require.Equal(t, 200, e.post("/v1/invoices/"+cancelled+"/cancel", nil).Status)

		res, err := e.svc.Expire(context.Background())
		require.NoError(t, err)
		assert.Zero(t, res.Expired, "none due yet")

		e.Clock.Advance(3 * time.Minute)
		var wg sync.WaitGroup
		var expired atomic.Int64
		for i := 0; i < 3; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := e.svc.Expire(context.Background())
				assert.NoError(t, err)
				expired.Add(int64(res.Expired))
			}()
		}
		wg.Wait()
		assert.EqualValues(t, 5, expired.Load(), "each due invoice expired once")
		for _, id := range due {
			got := e.Do("GET", "/v1/invoices/"+id, nil).Map(t)
			assert.Equal(t, "expired", got["status"])
			assert.NotEmpty(t, got["expired_at"])
		}
		assert.Equal(t, "created", e.Do("GET", "/v1/invoices/"+later, nil).Map(t)["status"])
		assert.Equal(t, "paid", e.Do("GET", "/v1/invoices/"+paid, nil).Map(t)["status"])
		assert.Equal(t, "cancelled", e.Do("GET", "/v1/invoices/"+cancelled, nil).Map(t)["status"])
		evs := e.events()
		assert.Equal(t, 5, count(evs, EventExpired))
		assert.Equal(t, 1, count(evs, EventCancelled))
		res, err = e.svc.Expire(context.Background())
		require.NoError(t, err)
		assert.Zero(t, res.Expired+res.Dropped, "the index is empty of due entries")
		var list struct {
			Data []map[string]any `json:"data"`
		}
		e.Do("GET", "/v1/invoices?status=expired", nil).JSON(t, &list)
		assert.Len(t, list.Data, 5)
		e.check()
	})
}

// TestInvoiceCancel: an unpaid invoice is cancelled (invoice.cancelled);
// cancelling it again, or cancelling a paid or expired one, is a 409 naming
// why; a cancelled invoice cannot be paid.
func TestInvoiceCancel(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, ledger.Policy{})
		id := e.invoice(invoiceBody(1000))["id"].(string)
		r := e.post("/v1/invoices/"+id+"/cancel", nil)
		require.Equal(t, 200, r.Status, string(r.Body))
		assert.Equal(t, "cancelled", r.Map(t)["status"])
		assert.NotEmpty(t, r.Map(t)["cancelled_at"])
		for path, code := range map[string]string{"/v1/invoices/" + id + "/cancel": "invoice_cancelled", "/test-helpers/invoices/" + id + "/pay": "invoice_cancelled"} {
			r := e.post(path, nil)
			require.Equal(t, 409, r.Status, string(r.Body))
			c, _ := errOf(t, r)
			assert.Equal(t, code, c, path)
		}
		p := e.invoice(invoiceBody(1000))["id"].(string)
		require.Equal(t, 200, e.post("/test-helpers/invoices/"+p+"/pay", nil).Status)
		r = e.post("/v1/invoices/"+p+"/cancel", nil)
		require.Equal(t, 409, r.Status)
		c, _ := errOf(t, r)
		assert.Equal(t, "invoice_already_paid", c)
		r = e.post("/v1/invoices/"+p+"/cancel", map[string]any{"reason": "x"})
		require.Equal(t, 400, r.Status, "the body takes no field")
		e.check()
	})
}

// TestInvoiceBadInput: each rule is a 400 naming the field and nothing is
// stored; on both stores.
func TestInvoiceBadInput(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, ledger.Policy{})
		with := func(k string, v any) map[string]any {
			body := invoiceBody(1000)
			if v == nil {
				delete(body, k)
			} else {
				body[k] = v
			}
			return body
		}
		now := e.Clock.Now()
		for _, c := range []struct {
			name  string
			body  map[string]any
			param string
		}{
			{"no payer", with("payer", nil), "payer"},
			{"an empty payer", with("payer", map[string]any{}), "payer"},
			{"a phone and an iin", with("payer", map[string]any{"phone": "+77011234567", "iin": "900101300017"}), "payer"},
			{"a phone without +", with("payer", map[string]any{"phone": "87011234567"}), "payer.phone"},
			{"a +7 phone of nine digits", with("payer", map[string]any{"phone": "+7701123456"}), "payer.phone"},
			{"an IIN with an impossible date", with("payer", map[string]any{"iin": "900230300019"}), "payer.iin"},
			{"a BIN with a wrong check digit", with("payer", map[string]any{"bin": "971240001316"}), "payer.bin"},
			{"no amount", with("amount", nil), "amount"},
			{"a zero amount", with("amount", map[string]any{"value": 0, "currency": "KZT"}), "amount.value"},
			{"an unknown currency", with("amount", map[string]any{"value": 1, "currency": "KZX"}), "amount.currency"},
			{"no description", with("description", nil), "description"},
			{"a blank description", with("description", "  "), "description"},
			{"no order reference", with("order_reference", nil), "order_reference"},
			{"expires_at in the past", with("expires_at", now.Add(-time.Minute).UTC().Format(time.RFC3339)), "expires_at"},
			{"expires_at in 31 days", with("expires_at", now.Add(31*24*time.Hour).UTC().Format(time.RFC3339)), "expires_at"},
			{"expires_at not a time", with("expires_at", "tomorrow"), "expires_at"},
			{"line items that do not add up", with("line_items", []any{map[string]any{"name": "A", "quantity": 3, "unit_amount": 300}}), "line_items"},
			{"an empty line items list", with("line_items", []any{}), "line_items"},
			{"a line item of quantity 0", with("line_items", []any{map[string]any{"name": "A", "quantity": 0, "unit_amount": 1000}}), "line_items[0].quantity"},
			{"a line item past the maximum", with("line_items", []any{map[string]any{"name": "A", "quantity": 1000000, "unit_amount": 1000000000000000}}), "line_items[0].quantity"},
			{"a line item without a name", with("line_items", []any{map[string]any{"quantity": 1, "unit_amount": 1000}}), "line_items[0].name"},
		} {
			r := e.post("/v1/invoices", c.body)
			require.Equal(t, 400, r.Status, "%s: %s", c.name, r.Body)
			_, param := errOf(t, r)
			assert.Equal(t, c.param, param, c.name)
		}
		r := e.Do("POST", "/v1/invoices", invoiceBody(1000))
		require.Equal(t, 400, r.Status, "Idempotency-Key is required")
		var list struct {
			Data []map[string]any `json:"data"`
		}
		e.Do("GET", "/v1/invoices", nil).JSON(t, &list)
		assert.Empty(t, list.Data, "nothing stored")
		for q, param := range map[string]string{"status=open": "status", "created_from=x": "created_from", "limit=101": "limit"} {
			r := e.Do("GET", "/v1/invoices?"+q, nil)
			require.Equal(t, 400, r.Status, q)
			_, p := errOf(t, r)
			assert.Equal(t, param, p, q)
		}
		// 30 days exactly is allowed, and IIN and BIN payers are.
		body := with("expires_at", now.Add(30*24*time.Hour-time.Second).UTC().Format(time.RFC3339))
		body["payer"] = map[string]any{"bin": "971240001315"}
		assert.Equal(t, "971240001315", e.invoice(body)["payer"].(map[string]any)["bin"])
	})
}

// TestAnotherAccountsInvoiceIs404: another account's invoice is a 404 on
// every route, exactly as a missing one, and nothing changes; a live key
// cannot reach the test helper.
func TestAnotherAccountsInvoiceIs404(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, ledger.Policy{})
		id := e.invoice(invoiceBody(1000))["id"].(string)
		_, other := e.NewAccount(accounts.Test)
		// Each route answers another account's invoice exactly as one that
		// exists nowhere (the same status and error, the id aside).
		const missing = "0190a6c2-3b7e-7d4c-9a51-2f6e8b1c0d42"
		for _, c := range []struct{ method, path string }{
			{"GET", "/v1/invoices/%s"}, {"POST", "/v1/invoices/%s/cancel"}, {"POST", "/test-helpers/invoices/%s/pay"},
		} {
			answer := func(id string) (int, map[string]any) {
				r := e.DoKey(other, c.method, fmt.Sprintf(c.path, id), nil, "Idempotency-Key", e.key())
				er := r.Err(t)
				require.NotNil(t, er, string(r.Body))
				er["message"] = strings.ReplaceAll(er["message"].(string), id, "<id>")
				delete(er, "request_id") // per request
				return r.Status, er
			}
			st, theirs := answer(id)
			assert.Equal(t, 404, st, "%s %s: %v", c.method, c.path, theirs)
			stMissing, none := answer(missing)
			assert.Equal(t, stMissing, st, c.path)
			assert.Equal(t, none, theirs, "%s %s: another account's invoice reads as a missing one", c.method, c.path)
		}
		var list struct {
			Data []map[string]any `json:"data"`
		}
		e.DoKey(other, "GET", "/v1/invoices", nil).JSON(t, &list)
		assert.Empty(t, list.Data)
		assert.Equal(t, "created", e.Do("GET", "/v1/invoices/"+id, nil).Map(t)["status"])
		_, live := e.NewAccount(accounts.Live)
		r := e.DoKey(live, "POST", "/test-helpers/invoices/"+id+"/pay", nil, "Idempotency-Key", e.key())
		assert.Equal(t, 403, r.Status, string(r.Body))
		assert.EqualValues(t, 0, e.bal("KZT", ledger.Available))
	})
}

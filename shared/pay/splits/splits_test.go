package splits_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/sandbox/cardprocessor"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/pay/splits"
	"github.com/paygate/paygate/shared/pay/transactions"
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
	n atomic.Int64
}

func stores(t *testing.T, f func(t *testing.T, st func(testing.TB) store.Store)) {
	t.Run("embedded", func(t *testing.T) { f(t, func(testing.TB) store.Store { return nil }) })
	t.Run("dynamodb", func(t *testing.T) { f(t, func(t testing.TB) store.Store { return dynamotest.New(t, nil) }) })
}

// newEnv serves the split requests and the transactions (captures and
// refunds posting by pol) over one store.
func newEnv(t testing.TB, st store.Store, pol ledger.Policy) *env {
	t.Helper()
	e := &env{}
	sp := func(d *app.Deps) (httpapi.Group, error) {
		return splits.New(splits.Config{Store: d.Store, Clock: d.Clock}).Group(), nil
	}
	tx := func(d *app.Deps) (httpapi.Group, error) {
		return transactions.New(transactions.Config{Store: d.Store, Clock: d.Clock, Log: d.Log, Processor: cardprocessor.New(), Ledger: pol}).Group(), nil
	}
	e.Env = apitest.NewWith(t, apitest.Options{Store: st}, sp, tx)
	return e
}

func (e *env) post(path string, body any) *apitest.Resp {
	e.T.Helper()
	return e.Do("POST", path, body, "Idempotency-Key", fmt.Sprintf("k-%d-%d", time.Now().UnixNano(), e.n.Add(1)))
}

// payment writes a payment as checkout leaves it, in status (authorized,
// or charged in full), for account.
func (e *env) payment(account string, amount int64, ref string, status payments.Status) string {
	e.T.Helper()
	now := e.Clock.Now()
	p := payments.New(payments.Payment{ID: ids.New(), AccountID: account, Amount: amount, Currency: "EUR",
		PaymentMethod: "visa", Last4: "1111", MerchantReference: ref}, now)
	switch status {
	case payments.Created:
	case payments.Rejected:
		require.NoError(e.T, p.Transition(payments.Rejected, "Refused", now))
	default:
		require.NoError(e.T, p.Transition(payments.Authorized, "", now))
	}
	if status == payments.Charged {
		require.NoError(e.T, p.Capture(payments.Op{}, now))
	}
	require.NoError(e.T, payments.NewRepo(e.Deps.Store).Save(context.Background(), p))
	return p.ID
}

func part(ref string, kv ...any) map[string]any {
	m := map[string]any{"reference": ref}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func errOf(t testing.TB, r *apitest.Resp) (code, param string) {
	t.Helper()
	er := r.Err(t)
	require.NotNil(t, er, string(r.Body))
	p, _ := er["param"].(string)
	return er["code"].(string), p
}

func (e *env) balance(a ledger.Account) int64 {
	e.T.Helper()
	n, err := ledgertest.BalanceOf(context.Background(), e.Deps.Store, e.Account.ID, "EUR", a)
	require.NoError(e.T, err)
	return n
}

func (e *env) check() {
	e.T.Helper()
	r, err := ledger.Check(context.Background(), e.Deps.Store, e.Account.ID)
	require.NoError(e.T, err)
	require.True(e.T, r.OK(), r.String())
}

// TestSplitAppliedAtCaptureAndReversedOnRefunds: a split (a percentage, an
// amount paying fees) created by order reference is applied by the capture
// as one split entry, with its event; three refunds take each part back in
// proportion, rounded down per part and exact to the minor unit, the full
// refund taking back all; the check finds the books consistent; on both
// stores.
func TestSplitAppliedAtCaptureAndReversedOnRefunds(t *testing.T) {
	stores(t, func(t *testing.T, st func(testing.TB) store.Store) {
		e := newEnv(t, st(t), ledger.Policy{FeeBps: 100}) // a 1% fee, to see pays_fees at work
		id := e.payment(e.Account.ID, 10001, "order-77", payments.Authorized)
		r := e.post("/v1/split-requests", map[string]any{"order_reference": "order-77", "parts": []any{
			part("market", "percentage", 33), part("courier", "amount", 1234, "pays_fees", true)}, "metadata": map[string]any{"k": "v"}})
		require.Equal(t, 201, r.Status, string(r.Body))
		s := r.Map(t)
		sid := s["id"].(string)
		assert.Equal(t, "pending", s["status"])
		assert.Equal(t, id, s["transaction_id"])
		assert.EqualValues(t, 10001-3300-1234, s["merchant_share"], "33% of 10001 rounds down to 3300")

		r = e.post("/v1/transactions/"+id+"/capture", nil)
		require.Equal(t, 200, r.Status, string(r.Body))
		s = e.Do("GET", "/v1/split-requests/"+sid, nil).Map(t)
		assert.Equal(t, "applied", s["status"])
		parts := s["parts"].([]any)
		market, courier := parts[0].(map[string]any), parts[1].(map[string]any)
		assert.EqualValues(t, 3300, market["applied_amount"])
		assert.EqualValues(t, 1234, courier["applied_amount"])
		assert.EqualValues(t, 100, courier["fee_amount"], "1% of 10001 = 100, borne by the part that pays fees")
		assert.EqualValues(t, 0, market["fee_amount"])
		assert.EqualValues(t, 3300, e.balance(ledger.Partner("market")))
		assert.EqualValues(t, 1134, e.balance(ledger.Partner("courier")))
		assert.EqualValues(t, 100, e.balance(ledger.Fees))
		assert.EqualValues(t, 10001-3300-1234, e.balance(ledger.Available))
		es, err := ledgertest.EntriesOf(context.Background(), e.Deps.Store, e.Account.ID, ledger.Source{Type: ledger.SourceSplitRequest, ID: sid})
		require.NoError(t, err)
		require.Len(t, es, 1, "applied as one entry")
		assert.Equal(t, ledger.EntrySplit, es[0].Type)
		assert.Equal(t, 1, e.eventsOfType(payments.EventSplitApplied))

		// The fee is not returned by refunds: another capture (1000, its fee 10)
		// gives the merchant what the full refund will need beyond the split
		// payment's own funds.
		other := e.payment(e.Account.ID, 1000, "order-78", payments.Authorized)
		require.Equal(t, 200, e.post("/v1/transactions/"+other+"/capture", nil).Status)

		// Refunds of 1000, 2500 and the rest (6501).
		credited := map[string]int64{"market": 3300, "courier": 1134}
		var refunded int64
		for _, amount := range []int64{1000, 2500, 6501} {
			before := map[string]int64{"market": e.balance(ledger.Partner("market")), "courier": e.balance(ledger.Partner("courier"))}
			avail := e.balance(ledger.Available)
			r = e.post("/v1/transactions/"+id+"/refund", map[string]any{"amount": amount})
			require.Equal(t, 200, r.Status, string(r.Body))
			refunded += amount
			var parts int64
			for ref, c := range credited {
				// Each part's cumulative give-back is floor(credited x refunded / captured).
				want := c*refunded/10001 - c*(refunded-amount)/10001
				got := before[ref] - e.balance(ledger.Partner(ref))
				assert.Equal(t, want, got, "%s gives back its share of %d", ref, amount)
				parts += got
			}
			merchant := avail - e.balance(ledger.Available)
			assert.Equal(t, amount, parts+merchant, "the parts and the merchant's share sum to the refund")
		}
		assert.Zero(t, e.balance(ledger.Partner("market")))
		assert.Zero(t, e.balance(ledger.Partner("courier")))
		s = e.Do("GET", "/v1/split-requests/"+sid, nil).Map(t)
		assert.EqualValues(t, 3300, s["parts"].([]any)[0].(map[string]any)["reversed_amount"])
		assert.EqualValues(t, 1134, s["parts"].([]any)[1].(map[string]any)["reversed_amount"])
		assert.EqualValues(t, 990-100, e.balance(ledger.Available)+e.balance(ledger.Pending),
			"fees are not returned by refunds: the merchant bears the split payment's 100")
		assert.EqualValues(t, 110, e.balance(ledger.Fees))
		e.check()
	})
}

func (e *env) eventsOfType(typ string) int {
	e.T.Helper()
	page, err := e.Deps.Store.Query(context.Background(), store.Query{Table: store.TableEvents, PK: "evt#" + e.Account.ID, Limit: 1000})
	require.NoError(e.T, err)
	n := 0
	for _, it := range page.Items {
		var ev struct{ Type string }
		require.NoError(e.T, json.Unmarshal(it.Data, &ev))
		if ev.Type == typ {
			n++
		}
	}
	return n
}

// TestBadSplitsAreRefused: parts above the payment, a negative part, a
// percentage above 100, another account's payment, a captured payment, a
// second split: 400, 404 or 409, and nothing is stored; on both stores.
func TestBadSplitsAreRefused(t *testing.T) {
	stores(t, func(t *testing.T, st func(testing.TB) store.Store) {
		e := newEnv(t, st(t), ledger.Policy{})
		id := e.payment(e.Account.ID, 1000, "order-1", payments.Authorized)
		otherAcct, _ := e.NewAccount(accounts.Test)
		theirs := e.payment(otherAcct.ID, 1000, "order-2", payments.Authorized)
		captured := e.payment(e.Account.ID, 1000, "order-3", payments.Charged)
		refused := e.payment(e.Account.ID, 1000, "order-4", payments.Rejected)
		e.payment(e.Account.ID, 500, "order-5", payments.Authorized)
		e.payment(e.Account.ID, 500, "order-5", payments.Authorized)
		for _, c := range []struct {
			name   string
			body   map[string]any
			status int
			code   string
			param  string
		}{
			{"parts exceed the payment", map[string]any{"transaction_id": id, "parts": []any{part("a", "amount", 600), part("b", "percentage", 41)}}, 400, "split_exceeds_payment", "parts"},
			{"a negative part", map[string]any{"transaction_id": id, "parts": []any{part("a", "amount", -1)}}, 400, "", "parts[0].amount"},
			{"a zero part", map[string]any{"transaction_id": id, "parts": []any{part("a", "amount", 0)}}, 400, "", "parts[0].amount"},
			{"a part above the payment", map[string]any{"transaction_id": id, "parts": []any{part("a", "amount", 1001)}}, 400, "", "parts[0].amount"},
			{"a percentage above 100", map[string]any{"transaction_id": id, "parts": []any{part("a", "percentage", 101)}}, 400, "", "parts[0].percentage"},
			{"a negative percentage", map[string]any{"transaction_id": id, "parts": []any{part("a", "percentage", -10)}}, 400, "", "parts[0].percentage"},
			{"a percentage with decimals", map[string]any{"transaction_id": id, "parts": []any{part("a", "percentage", 12.5)}}, 400, "", "parts[0].percentage"},
			{"amount and percentage", map[string]any{"transaction_id": id, "parts": []any{part("a", "percentage", 10, "amount", 5)}}, 400, "", "parts[0].percentage"},
			{"neither", map[string]any{"transaction_id": id, "parts": []any{part("a")}}, 400, "", "parts[0].amount"},
			{"a bad reference", map[string]any{"transaction_id": id, "parts": []any{part("a b", "amount", 5)}}, 400, "", "parts[0].reference"},
			{"a reference twice", map[string]any{"transaction_id": id, "parts": []any{part("a", "amount", 5), part("a", "amount", 5)}}, 400, "", "parts[1].reference"},
			{"no parts", map[string]any{"transaction_id": id, "parts": []any{}}, 400, "", "parts"},
			{"no payment named", map[string]any{"parts": []any{part("a", "amount", 5)}}, 400, "", "transaction_id"},
			{"both names", map[string]any{"transaction_id": id, "order_reference": "order-1", "parts": []any{part("a", "amount", 5)}}, 400, "", "order_reference"},
			{"another account's payment", map[string]any{"transaction_id": theirs, "parts": []any{part("a", "amount", 5)}}, 404, "", "transaction_id"},
			{"another account's reference", map[string]any{"order_reference": "order-2", "parts": []any{part("a", "amount", 5)}}, 404, "", "order_reference"},
			{"a missing payment", map[string]any{"transaction_id": ids.New(), "parts": []any{part("a", "amount", 5)}}, 404, "", "transaction_id"},
			{"a captured payment", map[string]any{"transaction_id": captured, "parts": []any{part("a", "amount", 5)}}, 409, "payment_already_captured", ""},
			{"a refused payment", map[string]any{"transaction_id": refused, "parts": []any{part("a", "amount", 5)}}, 409, "payment_state_conflict", ""},
			{"two payments await capture", map[string]any{"order_reference": "order-5", "parts": []any{part("a", "amount", 5)}}, 409, "ambiguous_order_reference", "order_reference"},
		} {
			r := e.post("/v1/split-requests", c.body)
			require.Equal(t, c.status, r.Status, "%s: %s", c.name, r.Body)
			code, param := errOf(t, r)
			if c.code != "" {
				assert.Equal(t, c.code, code, c.name)
			}
			assert.Equal(t, c.param, param, c.name)
		}
		var list struct {
			Data []map[string]any `json:"data"`
		}
		e.Do("GET", "/v1/split-requests", nil).JSON(t, &list)
		assert.Empty(t, list.Data, "nothing stored")

		r := e.post("/v1/split-requests", map[string]any{"transaction_id": id, "parts": []any{part("a", "percentage", 100)}})
		require.Equal(t, 201, r.Status, "the whole payment to one partner: %s", r.Body)
		r = e.post("/v1/split-requests", map[string]any{"transaction_id": id, "parts": []any{part("b", "amount", 5)}})
		require.Equal(t, 409, r.Status, string(r.Body))
		code, _ := errOf(t, r)
		assert.Equal(t, "split_request_exists", code)
	})
}

// TestSplitChangesUntilApplied: a pending split can be changed (parts,
// metadata) and deleted; once a capture applied it, neither (409); another
// account's split is a 404 on every route; on both stores.
func TestSplitChangesUntilApplied(t *testing.T) {
	stores(t, func(t *testing.T, st func(testing.TB) store.Store) {
		e := newEnv(t, st(t), ledger.Policy{})
		id := e.payment(e.Account.ID, 2000, "order-1", payments.Authorized)
		r := e.post("/v1/split-requests", map[string]any{"transaction_id": id, "parts": []any{part("a", "amount", 500)}})
		require.Equal(t, 201, r.Status, string(r.Body))
		sid := r.Map(t)["id"].(string)

		r = e.post("/v1/split-requests/"+sid, map[string]any{"parts": []any{part("a", "amount", 2001)}})
		require.Equal(t, 400, r.Status, "the update holds to the same rules")
		r = e.post("/v1/split-requests/"+sid, map[string]any{"parts": []any{part("a", "amount", 700), part("b", "percentage", 10)}, "metadata": map[string]any{"x": "y"}})
		require.Equal(t, 200, r.Status, string(r.Body))
		s := r.Map(t)
		assert.Len(t, s["parts"], 2)
		assert.EqualValues(t, 2000-700-200, s["merchant_share"])
		assert.Equal(t, map[string]any{"x": "y"}, s["metadata"])

		_, other := e.NewAccount(accounts.Test)
		for _, c := range []struct {
			method string
			body   any
		}{{"GET", nil}, {"POST", map[string]any{"metadata": map[string]any{}}}, {"DELETE", nil}} {
			r := e.DoKey(other, c.method, "/v1/split-requests/"+sid, c.body)
			assert.Equal(t, 404, r.Status, "%s: %s", c.method, r.Body)
		}
		var list struct {
			Data []map[string]any `json:"data"`
		}
		e.DoKey(other, "GET", "/v1/split-requests", nil).JSON(t, &list)
		assert.Empty(t, list.Data)

		// Deleted, then made again, then applied.
		r = e.Do("DELETE", "/v1/split-requests/"+sid, nil)
		require.Equal(t, 200, r.Status, string(r.Body))
		assert.Equal(t, 404, e.Do("GET", "/v1/split-requests/"+sid, nil).Status)
		p, err := payments.NewRepo(e.Deps.Store).Get(context.Background(), e.Account.ID, id)
		require.NoError(t, err)
		assert.Nil(t, p.Split, "the payment is undivided again")
		r = e.post("/v1/split-requests", map[string]any{"transaction_id": id, "parts": []any{part("a", "amount", 500)}})
		require.Equal(t, 201, r.Status, string(r.Body))
		sid = r.Map(t)["id"].(string)
		require.Equal(t, 200, e.post("/v1/transactions/"+id+"/capture", map[string]any{"amount": 1000}).Status)
		for _, r := range []*apitest.Resp{
			e.post("/v1/split-requests/"+sid, map[string]any{"metadata": map[string]any{}}),
			e.Do("DELETE", "/v1/split-requests/"+sid, nil),
		} {
			require.Equal(t, 409, r.Status, string(r.Body))
			code, _ := errOf(t, r)
			assert.Equal(t, "split_request_applied", code)
		}
		s = e.Do("GET", "/v1/split-requests/"+sid, nil).Map(t)
		assert.EqualValues(t, 250, s["parts"].([]any)[0].(map[string]any)["applied_amount"], "half captured: half the share")
		require.Equal(t, 200, e.post("/v1/transactions/"+id+"/capture", nil).Status)
		s = e.Do("GET", "/v1/split-requests/"+sid, nil).Map(t)
		assert.EqualValues(t, 500, s["parts"].([]any)[0].(map[string]any)["applied_amount"], "all captured: the whole share")
		e.Do("GET", "/v1/split-requests?status=applied&transaction_id="+id, nil).JSON(t, &list)
		assert.Len(t, list.Data, 1)
		e.check()
	})
}

// TestCallsPerCaptureWithAndWithoutSplit counts DynamoDB calls on DynamoDB
// Local: a capture is GetItem (API key) + GetItem (idempotency key) +
// GetItem (payment) + one TransactWriteItems + the DeleteItem of its
// modification's due entry once the card processor received it, with or
// without a split (the payment carries it: no extra read).
func TestCallsPerCaptureWithAndWithoutSplit(t *testing.T) {
	counter := dynamostore.NewCallCounter()
	client := dynamotest.Client(t, counter.Option())
	st := dynamostore.New(client, dynamotest.Tables(t, client), nil)
	e := newEnv(t, st, ledger.Policy{})
	plain := e.payment(e.Account.ID, 10000, "order-plain", payments.Authorized)
	split := e.payment(e.Account.ID, 10000, "order-split", payments.Authorized)
	r := e.post("/v1/split-requests", map[string]any{"transaction_id": split, "parts": []any{part("a", "percentage", 10), part("b", "amount", 500)}})
	require.Equal(t, 201, r.Status, string(r.Body))
	for _, id := range []string{plain, split} {
		counter.Reset()
		r := e.post("/v1/transactions/"+id+"/capture", nil)
		require.Equal(t, 200, r.Status, string(r.Body))
		assert.Equal(t, map[string]int{"GetItem": 3, "TransactWriteItems": 1, "DeleteItem": 1}, counter.Counts(), id)
	}
	e.check()
}

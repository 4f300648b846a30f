package prepaid_test

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

func build(d *app.Deps) (httpapi.Group, error) {
	return prepaid.Group(prepaid.New(d.Store, d.Clock)), nil
}

type list struct {
	Data       []map[string]any `json:"data"`
	HasMore    bool             `json:"has_more"`
	NextCursor string           `json:"next_cursor"`
}

func get(t *testing.T, e *apitest.Env, path string) list {
	t.Helper()
	r := e.Do("GET", path, nil)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	var l list
	r.JSON(t, &l)
	return l
}

func deposit(t *testing.T, e *apitest.Env, body map[string]any, status int) map[string]any {
	t.Helper()
	r := e.Do("POST", "/test-helpers/deposits", body)
	require.Equal(t, status, r.Status, "%s", r.Body)
	return r.Map(t)
}

func TestBalanceRowsPerCurrency(t *testing.T) {
	e := apitest.New(t, build)
	require.Empty(t, get(t, e, "/balance").Data)
	deposit(t, e, map[string]any{"currency_code": "USD", "amount": "100.00"}, 201)
	deposit(t, e, map[string]any{"currency_code": "USD", "amount": "0.50"}, 201)
	deposit(t, e, map[string]any{"currency_code": "JPY", "amount": "5000"}, 201)
	d := deposit(t, e, map[string]any{"currency_code": "EUR", "amount": "20", "external_ref": "SEPA-1", "method": "bank_wire"}, 201)
	require.Equal(t, "20.00", d["amount"])
	require.Equal(t, "bank_wire", d["method"])
	require.Equal(t, "posted", d["status"])
	require.Equal(t, "SEPA-1", d["external_ref"])
	require.NotNil(t, d["posted_at"])

	rows := get(t, e, "/balance").Data
	require.Len(t, rows, 3)
	got := map[string]any{}
	for _, r := range rows {
		got[r["currency_code"].(string)] = r["available"]
		require.NotEmpty(t, r["updated_at"])
	}
	require.Equal(t, map[string]any{"USD": "100.50", "JPY": "5000", "EUR": "20.00"}, got)

	// Another account sees none of it.
	_, other := e.NewAccount(accounts.Test)
	r := e.DoKey(other, "GET", "/balance", nil)
	require.Equal(t, 200, r.Status)
	require.Empty(t, r.Map(t)["data"])
	r = e.DoKey(other, "GET", "/deposits", nil)
	require.Empty(t, r.Map(t)["data"])
}

func TestTestDepositSameReference(t *testing.T) {
	e := apitest.New(t, build)
	first := deposit(t, e, map[string]any{"currency_code": "USD", "amount": "10.00", "external_ref": "BANK-123"}, 201)
	again := deposit(t, e, map[string]any{"currency_code": "USD", "amount": "10.00", "external_ref": "BANK-123"}, 200)
	require.Equal(t, first["id"], again["id"])
	r := e.Do("POST", "/test-helpers/deposits", map[string]any{"currency_code": "USD", "amount": "11.00", "external_ref": "BANK-123"})
	require.Equal(t, 409, r.Status)
	require.Equal(t, "external_ref_in_use", r.Err(t)["code"])
	require.Equal(t, "10.00", get(t, e, "/balance").Data[0]["available"])

	// With an Idempotency-Key, a retry replays the first answer.
	body := map[string]any{"currency_code": "USD", "amount": "1.00"}
	r1 := e.Do("POST", "/test-helpers/deposits", body, "Idempotency-Key", "k-1")
	require.Equal(t, 201, r1.Status)
	r2 := e.Do("POST", "/test-helpers/deposits", body, "Idempotency-Key", "k-1")
	require.Equal(t, 201, r2.Status)
	require.Equal(t, "true", r2.Header.Get("Idempotent-Replayed"))
	require.Equal(t, r1.Map(t)["id"], r2.Map(t)["id"])
	require.Equal(t, "11.00", get(t, e, "/balance").Data[0]["available"])
}

func TestTestDepositConcurrentSameReference(t *testing.T) {
	e := apitest.New(t, build)
	var wg sync.WaitGroup
	statuses := make([]int, 20)
	for i := range statuses {
		wg.Go(func() {
			r := e.Do("POST", "/test-helpers/deposits", map[string]any{"currency_code": "USD", "amount": "5.00", "external_ref": "RACE"})
			statuses[i] = r.Status
		})
	}
	wg.Wait()
	created := 0
	for _, s := range statuses {
		require.Contains(t, []int{200, 201}, s)
		if s == 201 {
			created++
		}
	}
	require.Equal(t, 1, created)
	require.Equal(t, "5.00", get(t, e, "/balance").Data[0]["available"])
}

func TestTestDepositLiveKeyForbidden(t *testing.T) {
	e := apitest.New(t, build)
	_, live := e.NewAccount(accounts.Live)
	r := e.DoKey(live, "POST", "/test-helpers/deposits", map[string]any{"currency_code": "USD", "amount": "10.00"})
	require.Equal(t, 403, r.Status)
	r = e.DoKey(live, "GET", "/balance", nil)
	require.Equal(t, 200, r.Status)
	require.Empty(t, r.Map(t)["data"])
	require.Equal(t, 401, e.DoKey("", "GET", "/balance", nil).Status)
}

func TestTestDepositBadInput(t *testing.T) {
	e := apitest.New(t, build)
	cases := []struct {
		body  any
		param string
	}{
		{map[string]any{"amount": "1.00"}, "currency_code"},
		{map[string]any{"currency_code": "USD"}, "amount"},
		{map[string]any{"currency_code": "XXQ", "amount": "1.00"}, "currency_code"},
		{map[string]any{"currency_code": "USD", "amount": "1.001"}, "amount"},
		{map[string]any{"currency_code": "JPY", "amount": "1.5"}, "amount"},
		{map[string]any{"currency_code": "USD", "amount": "-1.00"}, "amount"},
		{map[string]any{"currency_code": "USD", "amount": "1e2"}, "amount"},
		{map[string]any{"currency_code": "USD", "amount": 10}, "amount"},
		{map[string]any{"currency_code": "USD", "amount": "0"}, "amount"},
		{map[string]any{"currency_code": "USD", "amount": "1.00", "method": "cash"}, "method"},
		{map[string]any{"currency_code": "USD", "amount": "1.00", "external_ref": fmt.Sprintf("%0129d", 1)}, "external_ref"},
		{map[string]any{"currency_code": "USD", "amount": "1.00", "colour": "red"}, "colour"},
		// Strict JSON and the string rule (issue 8).
		{`{"currency_code": "USD", "amount": "1.00", "Amount": "900.00"}`, "Amount"},
		{`{"currency_code": "USD", "amount": "900.00", "amount": "1.00"}`, "amount"},
		{`{"currency_code": "USD", "currency_code": "EUR", "amount": "1.00"}`, "currency_code"},
		{`null`, ""},
		{`{"currency_code": null, "amount": "1.00"}`, "currency_code"},
		{`{"currency_code": "USD", "amount": "1.00", "external_ref": "a\u0000b"}`, "external_ref"},
		{"{\"currency_code\": \"USD\", \"amount\": \"1.00\", \"external_ref\": \"a\xffb\"}", "external_ref"},
		{`{"currency_code": "USD", "amount": "1.00", "external_ref": "\udc00"}`, "external_ref"},
		{`{"currency_code": "USD", "amount": "1.00", "external_ref": "REF\u202eFER"}`, "external_ref"},
		{`{"currency_code": "U\u0000D", "amount": "1.00"}`, "currency_code"},
	}
	for _, c := range cases {
		r := e.Do("POST", "/test-helpers/deposits", c.body)
		require.Equal(t, 400, r.Status, "%v: %s", c.body, r.Body)
		param, _ := r.Err(t)["param"].(string)
		require.Equal(t, c.param, param, "%v", c.body)
	}
	require.Empty(t, get(t, e, "/balance").Data, "nothing was credited")
	require.Empty(t, get(t, e, "/deposits").Data, "nothing was stored")
}

func TestDepositListFilters(t *testing.T) {
	clock := &apitest.Clock{}
	t0 := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	clock.Set(t0)
	e := apitest.NewWith(t, apitest.Options{Clock: clock}, build)
	for i := range 5 {
		deposit(t, e, map[string]any{"currency_code": "USD", "amount": fmt.Sprintf("%d.00", i+1)}, 201)
		clock.Advance(time.Hour)
	}
	deposit(t, e, map[string]any{"currency_code": "EUR", "amount": "9.00"}, 201) // at t0+5h

	amounts := func(l list) []any {
		out := []any{}
		for _, d := range l.Data {
			out = append(out, d["amount"])
		}
		return out
	}
	q := func(v url.Values) string { return "/deposits?" + v.Encode() }
	require.Equal(t, []any{"9.00", "5.00", "4.00", "3.00", "2.00", "1.00"}, amounts(get(t, e, "/deposits")), "newest first")
	require.Equal(t, []any{"9.00"}, amounts(get(t, e, q(url.Values{"currency": {"EUR"}}))))
	require.Equal(t, []any{"4.00", "3.00", "2.00"}, amounts(get(t, e, q(url.Values{
		"created_from": {t0.Add(time.Hour).Format(time.RFC3339)}, "created_to": {t0.Add(3 * time.Hour).Format(time.RFC3339)},
	}))))
	require.Equal(t, []any{"5.00", "4.00"}, amounts(get(t, e, q(url.Values{
		"created_from": {t0.Add(3 * time.Hour).Format(time.RFC3339)}, "currency": {"USD"},
	}))))
	require.Len(t, get(t, e, "/deposits?status=posted").Data, 6)
	require.Empty(t, get(t, e, "/deposits?status=pending").Data)

	// Paging through more than one page.
	var all []any
	path := "/deposits?limit=4"
	for {
		l := get(t, e, path)
		all = append(all, amounts(l)...)
		if !l.HasMore {
			break
		}
		path = "/deposits?limit=4&cursor=" + l.NextCursor
	}
	require.Equal(t, []any{"9.00", "5.00", "4.00", "3.00", "2.00", "1.00"}, all)

	for path, param := range map[string]string{
		"/deposits?status=done":                                                       "status",
		"/deposits?currency=dollars":                                                  "currency",
		"/deposits?created_from=yesterday":                                            "created_from",
		"/deposits?created_to=2024-13-01T00:00:00Z":                                   "created_to",
		"/deposits?created_from=2024-05-02T00:00:00Z&created_to=2024-05-01T00:00:00Z": "created_to",
		"/deposits?limit=500":                                                         "limit",
	} {
		r := e.Do("GET", path, nil)
		require.Equal(t, 400, r.Status, path)
		require.Equal(t, param, r.Err(t)["param"], path)
	}
}

// TestDepositsOverHTTPOnDynamoDB runs the reference race through the whole
// stack on DynamoDB Local.
func TestDepositsOverHTTPOnDynamoDB(t *testing.T) {
	st := dynamotest.New(t, nil)
	e := apitest.NewWith(t, apitest.Options{Store: st}, build)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			r := e.Do("POST", "/test-helpers/deposits", map[string]any{"currency_code": "USD", "amount": "5.00", "external_ref": "RACE"})
			require.Contains(t, []int{200, 201}, r.Status, "%s", r.Body)
			r = e.Do("POST", "/test-helpers/deposits", map[string]any{"currency_code": "USD", "amount": "1.00", "external_ref": fmt.Sprintf("U-%d", i)})
			require.Equal(t, 201, r.Status, "%s", r.Body)
		})
	}
	wg.Wait()
	require.Equal(t, "25.00", get(t, e, "/balance").Data[0]["available"])
	b, err := prepaid.New(st, nil).Balance(context.Background(), e.Account.ID, "USD")
	require.NoError(t, err)
	require.Equal(t, int64(2500), b.Available)
}

// TestTestDepositPastMaxBalance: over HTTP on both adapters, a deposit that
// would take a balance past money.MaxBalance is a 400 naming amount, credits
// nothing and records nothing (a keyed retry runs again); a deposit that
// reaches the maximum exactly is fine.
func TestTestDepositPastMaxBalance(t *testing.T) {
	backends(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		require.NoError(t, e.Deps.Store.Write(ctx, prepaid.CreditOp(e.Account.ID, "USD", money.MaxBalance-100, e.Deps.Clock())))
		body := map[string]any{"currency_code": "USD", "amount": "1.01", "external_ref": "TOO-MUCH"}
		for range 2 {
			r := e.Do("POST", "/test-helpers/deposits", body, "Idempotency-Key", "over-1")
			require.Equal(t, 400, r.Status, "%s", r.Body)
			require.Equal(t, "balance_limit_exceeded", r.Err(t)["code"])
			require.Equal(t, "amount", r.Err(t)["param"])
			require.Contains(t, r.Err(t)["message"], "1000000000000000.00 USD")
			require.Empty(t, r.Header.Get("Idempotent-Replayed"), "a 400 is not recorded for the key")
		}
		require.Equal(t, "999999999999999.00", get(t, e, "/balance").Data[0]["available"])
		require.Empty(t, get(t, e, "/deposits").Data, "nothing was stored")

		deposit(t, e, map[string]any{"currency_code": "USD", "amount": "1.00"}, 201)
		require.Equal(t, "1000000000000000.00", get(t, e, "/balance").Data[0]["available"])
		r := e.Do("POST", "/test-helpers/deposits", map[string]any{"currency_code": "USD", "amount": "0.01"})
		require.Equal(t, 400, r.Status, "%s", r.Body)
		require.Equal(t, "balance_limit_exceeded", r.Err(t)["code"])
		// The per-amount maximum comes first, with its own message.
		r = e.Do("POST", "/test-helpers/deposits", map[string]any{"currency_code": "EUR", "amount": "10000000000000.01"})
		require.Equal(t, 400, r.Status, "%s", r.Body)
		require.Equal(t, "amount", r.Err(t)["param"])
		require.Contains(t, r.Err(t)["message"], "at most 10000000000000.00")
		for _, amount := range []string{"010.00", "+1.00", "00.50", "1e2", " 1.00", "1.001"} {
			r := e.Do("POST", "/test-helpers/deposits", map[string]any{"currency_code": "EUR", "amount": amount})
			require.Equal(t, 400, r.Status, "%q: %s", amount, r.Body)
			require.Equal(t, "amount", r.Err(t)["param"], amount)
		}
		require.Len(t, get(t, e, "/balance").Data, 1, "no EUR balance was created")
	})
}

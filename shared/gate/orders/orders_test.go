package orders

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/platform/accounts"
)

func TestCreateFulfilComplete(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.deposit(e.Account.ID, "USD", 10000)
	r := e.order(map[string]any{"product_id": pCard, "quantity": 2, "external_ref": "inv-1"})
	require.Equal(t, 201, r.Status, string(r.Body))
	o := r.Map(t)
	require.Equal(t, "pending", o["status"])
	require.Equal(t, "20.00", o["charged_amount"])
	require.Equal(t, "100.00", o["balance_before"])
	require.Equal(t, "80.00", o["balance_after"])
	require.Equal(t, "10.00", o["unit_price"])
	require.Equal(t, true, o["is_test"])
	require.Equal(t, "inv-1", o["external_ref"])
	require.Equal(t, "GLOBAL", o["region_code"])
	require.EqualValues(t, 8000, e.balance(e.Account.ID, "USD"))

	require.Equal(t, 1, e.drain())
	got := e.get(o["id"].(string))
	require.Equal(t, "completed", got["status"])
	content := got["order_content"].(map[string]any)
	for _, k := range []string{"vendor_order_id", "voucher_code", "pin", "serial", "voucher_code_2"} {
		require.NotEmpty(t, content[k], k)
	}
	require.NotNil(t, got["completed_at"])
	require.Nil(t, got["failed_at"])
	require.EqualValues(t, 8000, e.balance(e.Account.ID, "USD"), "completion moves no money")

	// The outcome wrote one event record with the order (the deposit that
	// funded it wrote its own deposit.posted).
	page, err := e.Deps.Store.Query(context.Background(), eventlog.Newest(e.Account.ID, ""))
	require.NoError(t, err)
	var evs []eventlog.Record
	for _, it := range page.Items {
		ev, err := eventlog.Decode(it)
		require.NoError(t, err)
		require.False(t, it.ExpiresAt.IsZero(), "order events expire as every other event")
		if ev.Type != "deposit.posted" {
			evs = append(evs, ev)
		}
	}
	require.Len(t, evs, 1)
	ev := evs[0]
	require.Equal(t, EventCompleted, ev.Type)
	var data Order
	require.NoError(t, json.Unmarshal(ev.Data, &data))
	require.Equal(t, o["id"], data.ID)
	require.False(t, ev.Livemode)
}

func TestTopUpFailsAndRefundsOnce(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.deposit(e.Account.ID, "KZT", 100000)
	r := e.order(map[string]any{"product_id": pTopUp, "topup_request": map[string]any{
		"amount": "150.00", "customer_account": map[string]any{"phone_number": "+77010000000"}}})
	require.Equal(t, 201, r.Status, string(r.Body))
	id := r.Map(t)["id"].(string)
	require.EqualValues(t, 85000, e.balance(e.Account.ID, "KZT"))
	e.drain()
	got := e.get(id)
	require.Equal(t, "failed", got["status"])
	require.Equal(t, "invalid_account", got["failure_reason"])
	require.EqualValues(t, 100000, e.balance(e.Account.ID, "KZT"), "charge returned")
	// Fulfilling again (a redelivery) changes nothing.
	pending, err := e.svc.Fulfil(context.Background(), e.Account.ID, id)
	require.NoError(t, err)
	require.False(t, pending)
	require.EqualValues(t, 100000, e.balance(e.Account.ID, "KZT"))
}

func TestTopUpCompletes(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.deposit(e.Account.ID, "KZT", 100000)
	r := e.order(map[string]any{"product_id": pTopUp, "topup_request": map[string]any{
		"amount": "150.00", "customer_account": map[string]any{"phone_number": "+77011234567", "email": "a@b.kz"}}})
	require.Equal(t, 201, r.Status, string(r.Body))
	o := r.Map(t)
	require.Equal(t, "150.00", o["charged_amount"])
	require.EqualValues(t, 1, o["quantity"])
	e.drain()
	got := e.get(o["id"].(string))
	require.Equal(t, "completed", got["status"])
	require.Regexp(t, `^TOP-`, got["order_content"].(map[string]any)["receipt"])
}

func TestPendingVendorThenCompleted(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.deposit(e.Account.ID, "USD", 10000)
	r := e.order(map[string]any{"product_id": pTransfer, "external_ref": "slow-pending-1"})
	require.Equal(t, 201, r.Status, string(r.Body))
	id := r.Map(t)["id"].(string)
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		pending, err := e.svc.Fulfil(ctx, e.Account.ID, id)
		require.NoError(t, err)
		require.True(t, pending)
	}
	got := e.get(id)
	require.Equal(t, "pending", got["status"])
	require.NotEmpty(t, got["order_content"].(map[string]any)["vendor_order_id"], "vendor_order_id shows while pending")
	pending, err := e.svc.Fulfil(ctx, e.Account.ID, id)
	require.NoError(t, err)
	require.False(t, pending)
	got = e.get(id)
	require.Equal(t, "completed", got["status"])
	require.Regexp(t, `^TRF-`, got["order_content"].(map[string]any)["receipt"])
}

func TestIdempotency(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.deposit(e.Account.ID, "USD", 1000)
	body := map[string]any{"product_id": pCard}
	first := e.Do("POST", "/orders", body, "Idempotency-Key", "k1")
	require.Equal(t, 201, first.Status, string(first.Body))
	// The balance is now 0: the retry must replay, not refuse.
	again := e.Do("POST", "/orders", body, "Idempotency-Key", "k1")
	require.Equal(t, 201, again.Status, string(again.Body))
	require.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
	require.JSONEq(t, string(first.Body), string(again.Body))
	other := e.Do("POST", "/orders", map[string]any{"product_id": pCard, "quantity": 2}, "Idempotency-Key", "k1")
	require.Equal(t, 422, other.Status, string(other.Body))
	missing := e.Do("POST", "/orders", body)
	require.Equal(t, 400, missing.Status)
	code, param := errParam(t, missing)
	require.Equal(t, "idempotency_key_missing", code)
	require.Equal(t, "Idempotency-Key", param)
	require.Equal(t, 1, e.count())
	require.EqualValues(t, 0, e.balance(e.Account.ID, "USD"))
}

func TestInsufficientThenDepositSameKey(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.deposit(e.Account.ID, "USD", 500)
	body := map[string]any{"product_id": pCard}
	r := e.Do("POST", "/orders", body, "Idempotency-Key", "retry-me")
	require.Equal(t, 400, r.Status)
	code, _ := errParam(t, r)
	require.Equal(t, "insufficient_balance", code)
	require.Equal(t, 0, e.count())
	require.EqualValues(t, 500, e.balance(e.Account.ID, "USD"))
	e.deposit(e.Account.ID, "USD", 500)
	r = e.Do("POST", "/orders", body, "Idempotency-Key", "retry-me")
	require.Equal(t, 201, r.Status, string(r.Body))
	require.Equal(t, "10.00", r.Map(t)["balance_before"])
	require.Equal(t, "0.00", r.Map(t)["balance_after"])
	// No balance at all in a currency: also insufficient.
	r = e.order(map[string]any{"product_id": pTopUp, "topup_request": map[string]any{
		"amount": "5.00", "customer_account": map[string]any{"phone_number": "+77011234567"}}})
	require.Equal(t, 400, r.Status)
	code, _ = errParam(t, r)
	require.Equal(t, "insufficient_balance", code)
}

func TestBadInput(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.deposit(e.Account.ID, "USD", 100000)
	e.deposit(e.Account.ID, "KZT", 100000)
	topup := func(amount any, acct map[string]any) map[string]any {
		return map[string]any{"product_id": pTopUp, "topup_request": map[string]any{"amount": amount, "customer_account": acct}}
	}
	phone := map[string]any{"phone_number": "+77011234567"}
	cases := []struct {
		name   string
		body   any
		status int
		code   string
		param  string
	}{
		{"unknown product", map[string]any{"product_id": 999}, 404, "product_not_found", "product_id"},
		{"inactive product", map[string]any{"product_id": pInactive}, 400, "product_inactive", "product_id"},
		{"missing product", map[string]any{"quantity": 1}, 400, "parameter_missing", "product_id"},
		{"product_id string", `{"product_id": "1"}`, 400, "parameter_invalid_type", "product_id"},
		{"product_id float", `{"product_id": 1.5}`, 400, "parameter_invalid_type", "product_id"},
		{"product_id zero", map[string]any{"product_id": 0}, 400, "parameter_invalid", "product_id"},
		{"quantity zero", map[string]any{"product_id": pCard, "quantity": 0}, 400, "parameter_invalid", "quantity"},
		{"quantity negative", map[string]any{"product_id": pCard, "quantity": -1}, 400, "parameter_invalid", "quantity"},
		{"quantity over max", map[string]any{"product_id": pCard, "quantity": MaxQuantity + 1}, 400, "parameter_invalid", "quantity"},
		{"quantity float", `{"product_id": 1, "quantity": 1.5}`, 400, "parameter_invalid_type", "quantity"},
		{"external_ref too long", map[string]any{"product_id": pCard, "external_ref": string(make([]byte, 65))}, 400, "parameter_invalid", "external_ref"},
		{"external_ref bad chars", map[string]any{"product_id": pCard, "external_ref": "a b"}, 400, "parameter_invalid", "external_ref"},
		{"topup on fixed product", map[string]any{"product_id": pCard, "topup_request": map[string]any{"amount": "1.00", "customer_account": phone}}, 400, "parameter_invalid", "topup_request"},
		{"topup missing", map[string]any{"product_id": pTopUp}, 400, "parameter_missing", "topup_request"},
		{"topup quantity 2", map[string]any{"product_id": pTopUp, "quantity": 2, "topup_request": map[string]any{"amount": "10.00", "customer_account": phone}}, 400, "parameter_invalid", "quantity"},
		{"amount too many decimals", topup("10.001", phone), 400, "parameter_invalid", "topup_request.amount"},
		{"amount negative", topup("-10.00", phone), 400, "parameter_invalid", "topup_request.amount"},
		{"amount exponent", topup("1e3", phone), 400, "parameter_invalid", "topup_request.amount"},
		{"amount not a string", topup(10.5, phone), 400, "parameter_invalid_type", "topup_request.amount"},
		{"amount missing", map[string]any{"product_id": pTopUp, "topup_request": map[string]any{"customer_account": phone}}, 400, "parameter_missing", "topup_request.amount"},
		{"amount below min", topup("4.00", phone), 400, "amount_out_of_range", "topup_request.amount"},
		{"amount above max", topup("501.00", phone), 400, "amount_out_of_range", "topup_request.amount"},
		{"amount off step", topup("10.50", phone), 400, "amount_off_step", "topup_request.amount"},
		{"phone missing", topup("10.00", map[string]any{"email": "a@b.kz"}), 400, "parameter_missing", "topup_request.customer_account.phone_number"},
		{"phone pattern", topup("10.00", map[string]any{"phone_number": "12345"}), 400, "parameter_invalid", "topup_request.customer_account.phone_number"},
		{"phone not a string", topup("10.00", map[string]any{"phone_number": 77011234567}), 400, "parameter_invalid", "topup_request.customer_account.phone_number"},
		{"unknown account field", topup("10.00", map[string]any{"phone_number": "+77011234567", "steam_login": "x"}), 400, "parameter_invalid", "topup_request.customer_account.steam_login"},
		{"unknown field", map[string]any{"product_id": pCard, "colour": "red"}, 400, "parameter_unknown", "colour"},
		{"currency mismatch", map[string]any{"product_id": pCard, "currency_code": "EUR"}, 400, "parameter_invalid", "currency_code"},
		{"range product", map[string]any{"product_id": pRange}, 400, "product_not_orderable", "product_id"},
		{"test not boolean", `{"product_id": 1, "test": "yes"}`, 400, "parameter_invalid_type", "test"},
		// Strict JSON and the string rule (issue 8): what a proxy reads is what is ordered.
		{"case-variant name", `{"product_id": 1, "QUANTITY": 5}`, 400, "parameter_unknown", "QUANTITY"},
		{"case-variant beside the real name", `{"product_id": 1, "Product_ID": 2}`, 400, "parameter_unknown", "Product_ID"},
		{"duplicate name", `{"product_id": 2, "product_id": 1}`, 400, "parameter_duplicate", "product_id"},
		{"duplicate nested name", `{"product_id": 2, "topup_request": {"amount": "10.00", "amount": "500.00", "customer_account": {"phone_number": "+77011234567"}}}`, 400, "parameter_duplicate", "topup_request.amount"},
		{"duplicate customer_account field", `{"product_id": 2, "topup_request": {"amount": "10.00", "customer_account": {"phone_number": "+77011234567", "phone_number": "+77019999999"}}}`, 400, "parameter_duplicate", "topup_request.customer_account.phone_number"},
		{"null body", `null`, 400, "body_invalid", ""},
		{"null product_id", `{"product_id": null}`, 400, "parameter_invalid_type", "product_id"},
		{"null topup_request", `{"product_id": 2, "topup_request": null}`, 400, "parameter_invalid_type", "topup_request"},
		{"product_id 1.0", `{"product_id": 1.0}`, 400, "parameter_invalid_type", "product_id"},
		{"product_id int64 max + 1", `{"product_id": 9223372036854775808}`, 400, "parameter_invalid", "product_id"},
		{"quantity int64 max", `{"product_id": 1, "quantity": 9223372036854775807}`, 400, "parameter_invalid", "quantity"},
		{"quantity int64 min - 1", `{"product_id": 1, "quantity": -9223372036854775809}`, 400, "parameter_invalid", "quantity"},
		{"NUL in external_ref", `{"product_id": 1, "external_ref": "a\u0000b"}`, 400, "parameter_invalid", "external_ref"},
		{"NUL in a metadata key", `{"product_id": 1, "metadata": {"k\u0000": "v"}}`, 400, "parameter_invalid", "metadata"},
		{"control character in a metadata value", `{"product_id": 1, "metadata": {"k": "a\nb"}}`, 400, "parameter_invalid", "metadata.k"},
		{"invalid UTF-8", "{\"product_id\": 1, \"metadata\": {\"k\": \"a\xffb\"}}", 400, "parameter_invalid", "metadata.k"},
		{"lone surrogate", `{"product_id": 1, "metadata": {"k": "\ud800"}}`, 400, "parameter_invalid", "metadata.k"},
		{"bidi override in external_ref", `{"product_id": 1, "external_ref": "inv\u202e1"}`, 400, "parameter_invalid", "external_ref"},
		{"bidi override in customer_account", `{"product_id": 2, "topup_request": {"amount": "10.00", "customer_account": {"phone_number": "\u2066+77011234567"}}}`, 400, "parameter_invalid", "topup_request.customer_account.phone_number"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.order(c.body)
			require.Equal(t, c.status, r.Status, string(r.Body))
			code, param := errParam(t, r)
			require.Equal(t, c.code, code, string(r.Body))
			require.Equal(t, c.param, param, string(r.Body))
		})
	}
	require.Equal(t, 0, e.count(), "nothing stored")
	require.EqualValues(t, 100000, e.balance(e.Account.ID, "USD"), "nothing charged")
	require.EqualValues(t, 100000, e.balance(e.Account.ID, "KZT"), "nothing charged")
}

func TestGetAndList(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.deposit(e.Account.ID, "USD", 100000)
	var ids []string
	for i, ref := range []string{"a-1", "b-fail", "a-1", "c-3"} {
		pid := pCard
		if i == 3 {
			pid = pTransfer
		}
		r := e.order(map[string]any{"product_id": pid, "external_ref": ref})
		require.Equal(t, 201, r.Status, string(r.Body))
		ids = append(ids, r.Map(t)["id"].(string))
	}
	e.drain()

	list := func(q string) []string {
		r := e.Do("GET", "/orders"+q, nil)
		require.Equal(t, 200, r.Status, string(r.Body))
		var page struct {
			Data []Order `json:"data"`
		}
		r.JSON(t, &page)
		var out []string
		for _, o := range page.Data {
			out = append(out, o.ID)
		}
		return out
	}
	require.Equal(t, []string{ids[3], ids[2], ids[1], ids[0]}, list(""), "newest first")
	require.Equal(t, []string{ids[2], ids[0]}, list("?external_ref=a-1"))
	require.Equal(t, []string{ids[1]}, list("?status=failed"))
	require.Equal(t, []string{ids[3]}, list("?product_id=4"))
	require.Empty(t, list("?created_to=2000-01-01T00:00:00Z"))
	require.Len(t, list("?created_from=2000-01-01T00:00:00Z"), 4)

	// Paging with a filter: one by one.
	r := e.Do("GET", "/orders?status=completed&limit=1", nil)
	require.Equal(t, 200, r.Status)
	var page struct {
		Data       []Order `json:"data"`
		HasMore    bool    `json:"has_more"`
		NextCursor string  `json:"next_cursor"`
	}
	r.JSON(t, &page)
	require.True(t, page.HasMore)
	require.Equal(t, ids[3], page.Data[0].ID)
	r = e.Do("GET", "/orders?status=completed&limit=1&cursor="+page.NextCursor, nil)
	r.JSON(t, &page)
	require.Equal(t, ids[2], page.Data[0].ID)

	for q, param := range map[string]string{"?status=done": "status", "?product_id=x": "product_id", "?created_from=yesterday": "created_from", "?limit=0": "limit", "?cursor=!!": "cursor"} {
		r := e.Do("GET", "/orders"+q, nil)
		require.Equal(t, 400, r.Status, q)
		_, p := errParam(t, r)
		require.Equal(t, param, p, q)
	}

	r = e.Do("GET", "/orders/not-a-uuid", nil)
	require.Equal(t, 400, r.Status)
	r = e.Do("GET", "/orders/0190a6c2-0000-7000-8000-000000000000", nil)
	require.Equal(t, 404, r.Status)
	_, otherKey := e.NewAccount(accounts.Test)
	r = e.DoKey(otherKey, "GET", "/orders/"+ids[0], nil)
	require.Equal(t, 404, r.Status, "another account's order is not found")
	r = e.DoKey(otherKey, "GET", "/orders", nil)
	require.Equal(t, 200, r.Status)
	require.Empty(t, r.Map(t)["data"])
	r = e.DoKey("", "GET", "/orders", nil)
	require.Equal(t, 401, r.Status)
}

func TestTestHelpers(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.deposit(e.Account.ID, "USD", 5000)
	a := e.order(map[string]any{"product_id": pCard}).Map(t)["id"].(string)
	b := e.order(map[string]any{"product_id": pCard}).Map(t)["id"].(string)
	require.EqualValues(t, 3000, e.balance(e.Account.ID, "USD"))

	r := e.Do("POST", "/test-helpers/orders/"+a+"/complete", nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Equal(t, "completed", r.Map(t)["status"])
	require.NotEmpty(t, r.Map(t)["order_content"].(map[string]any)["voucher_code"])
	r = e.Do("POST", "/test-helpers/orders/"+a+"/fail", nil)
	require.Equal(t, 409, r.Status)
	code, _ := errParam(t, r)
	require.Equal(t, "order_not_pending", code)

	r = e.Do("POST", "/test-helpers/orders/"+b+"/fail", map[string]any{"reason": "card_blocked"})
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Equal(t, "card_blocked", r.Map(t)["failure_reason"])
	require.EqualValues(t, 4000, e.balance(e.Account.ID, "USD"), "one refund")
	r = e.Do("POST", "/test-helpers/orders/"+b+"/fail", nil)
	require.Equal(t, 409, r.Status)
	require.EqualValues(t, 4000, e.balance(e.Account.ID, "USD"))
	// The queued messages now find nothing to do.
	e.drain()
	require.EqualValues(t, 4000, e.balance(e.Account.ID, "USD"))

	_, liveKey := e.NewAccount(accounts.Live)
	r = e.DoKey(liveKey, "POST", "/test-helpers/orders/"+a+"/complete", nil)
	require.Equal(t, 403, r.Status)
	r = e.Do("POST", "/test-helpers/orders/"+a+"/fail", map[string]any{"reason": "Bad Reason"})
	require.Equal(t, 400, r.Status)
}

func TestLiveOrders(t *testing.T) {
	e := newEnv(t, envOpts{})
	live, liveKey := e.NewAccount(accounts.Live)
	require.NoError(t, loadCatalog(e, live.ID))
	e.deposit(live.ID, "USD", 5000)
	// test: true on a live key: sandbox vendor, is_test, paid from the live balance.
	r := e.DoKey(liveKey, "POST", "/orders", map[string]any{"product_id": pCard, "test": true}, "Idempotency-Key", "t1")
	require.Equal(t, 201, r.Status, string(r.Body))
	testOrder := r.Map(t)
	require.Equal(t, true, testOrder["is_test"])
	// A live order with no live vendor configured fails and is refunded.
	r = e.DoKey(liveKey, "POST", "/orders", map[string]any{"product_id": pCard}, "Idempotency-Key", "l1")
	require.Equal(t, 201, r.Status, string(r.Body))
	liveOrder := r.Map(t)
	require.Equal(t, false, liveOrder["is_test"])
	require.EqualValues(t, 3000, e.balance(live.ID, "USD"))
	e.drain()
	get := func(id string) map[string]any {
		r := e.DoKey(liveKey, "GET", "/orders/"+id, nil)
		require.Equal(t, 200, r.Status)
		return r.Map(t)
	}
	require.Equal(t, "completed", get(testOrder["id"].(string))["status"])
	failed := get(liveOrder["id"].(string))
	require.Equal(t, "failed", failed["status"])
	require.Equal(t, "vendor_unavailable", failed["failure_reason"])
	require.EqualValues(t, 4000, e.balance(live.ID, "USD"))
}

func loadCatalog(e *env, accountID string) error {
	return catalogRepo(e).Load(context.Background(), accountID, testCatalog)
}

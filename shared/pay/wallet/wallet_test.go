package wallet

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/paygate/paygate/shared/sandbox/walletprovider"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// TestAuthorizeBadInputStoresNothing: each bad authorisation is a 400 naming
// its field, and nothing is stored: no transaction, no open-index entry, no
// event, no queue message. Both store adapters.
func TestAuthorizeBadInputStoresNothing(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		with := func(field string, v any) any {
			m := body(phoneWaits, 1000)
			m[field] = v
			return m
		}
		without := func(field string) any {
			m := body(phoneWaits, 1000)
			delete(m, field)
			return m
		}
		cases := []struct {
			name, param, code string
			body              any
		}{
			{"invalid IIN check digit", "iin", "", with("iin", "900101300018")},
			{"impossible date in the IIN", "iin", "", with("iin", "900230300019")},
			{"not a leap year in the IIN", "iin", "", with("iin", "010229500426")},
			{"IIN of 11 digits", "iin", "", with("iin", "90010130001")},
			{"phone without +", "phoneNumber", "", with("phoneNumber", "77011234567")},
			{"+7 phone with nine digits", "phoneNumber", "", with("phoneNumber", "+770112345")},
			{"amount 10.5", "amount", "parameter_invalid_type", `{"amount": 10.5, "phoneNumber": "+77011234567", "iin": "900101300017", "orderReference": "o", "currency": "KZT"}`},
			{"amount 1000.0", "amount", "parameter_invalid_type", `{"amount": 1000.0, "phoneNumber": "+77011234567", "iin": "900101300017", "orderReference": "o", "currency": "KZT"}`},
			{`amount "100"`, "amount", "parameter_invalid_type", with("amount", "100")},
			{"amount 0", "amount", "", with("amount", 0)},
			{"amount negative", "amount", "", with("amount", -5)},
			{"amount 2^53+1", "amount", "", with("amount", int64(1)<<53+1)},
			{"amount beyond int64", "amount", "", `{"amount": 99999999999999999999, "phoneNumber": "+77011234567", "iin": "900101300017", "orderReference": "o", "currency": "KZT"}`},
			{"unknown currency", "currency", "", with("currency", "XYZ")},
			{"lower-case currency", "currency", "", with("currency", "kzt")},
			{"currency the sandbox wallet does not hold", "currency", "currency_not_supported", with("currency", "EUR")},
			{"empty orderReference", "orderReference", "", with("orderReference", "")},
			{"orderReference of 65 characters", "orderReference", "", with("orderReference", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")},
			{"missing amount", "amount", "", without("amount")},
			{"missing phoneNumber", "phoneNumber", "", without("phoneNumber")},
			{"missing iin", "iin", "", without("iin")},
			{"missing orderReference", "orderReference", "", without("orderReference")},
			{"missing currency", "currency", "", without("currency")},
			{"snake_case name", "order_reference", "parameter_unknown", with("order_reference", "x")},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := e.post("/v1/wallet/authorize", c.body)
				require.Equal(t, 400, r.Status, string(r.Body))
				code, param := errParam(t, r)
				assert.Equal(t, c.param, param, string(r.Body))
				if c.code != "" {
					assert.Equal(t, c.code, code)
				}
			})
		}
		r := e.Do("POST", "/v1/wallet/authorize", body(phoneWaits, 1000))
		require.Equal(t, 400, r.Status, "no Idempotency-Key")
		assert.Equal(t, 0, e.count(), "no transaction stored")
		assert.Equal(t, 0, e.openEntries(), "no open-index entry")
		assert.Empty(t, e.events(e.Account.ID, ""), "no event")
		assert.Equal(t, 0, e.queued(), "no confirmation message")
	})
}

// TestAuthorizeAnswersTheSpecFields: 200 with §2.3's fields, NEW, and the
// transaction readable and listed; its wallet.created event written.
func TestAuthorizeAnswersTheSpecFields(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		req := body(phoneWaits, 150000)
		req["iin"], req["currency"], req["orderReference"] = iinSecondPass, "USD", "inv-42"
		req["metadata"] = map[string]any{"cart": "c-7"}
		r := e.post("/v1/wallet/authorize", req)
		require.Equal(t, 200, r.Status, string(r.Body))
		m := r.Map(t)
		for _, f := range []string{"walletTransactionId", "walletTransactionStatus", "orderReference", "amount", "currency"} {
			assert.Contains(t, m, f)
		}
		assert.NotContains(t, string(r.Body), iinSecondPass, "the IIN is never shown")
		assert.Equal(t, "NEW", m["walletTransactionStatus"])
		assert.EqualValues(t, 150000, m["amount"])
		assert.Equal(t, "USD", m["currency"])
		assert.Equal(t, "inv-42", m["orderReference"])
		assert.Equal(t, false, m["livemode"])
		id := m["walletTransactionId"].(string)
		assert.Equal(t, map[string]any{"cart": "c-7"}, m["metadata"])
		assert.Equal(t, m, e.get(id))
		old := e.Do("GET", "/v1/wallet/transaction/"+id, nil, "Service-Version", "2023-09-01").Map(t)
		assert.NotContains(t, old, "metadata", "metadata arrived with 2024-01-15")
		assert.Equal(t, 1, e.count())
		assert.Equal(t, []string{EventCreated}, e.events(e.Account.ID, id))
		assert.Equal(t, 1, e.openEntries())
		assert.Equal(t, 1, e.queued())
	})
}

// TestAuthorizeRetriedWithItsKey: the same authorisation retried with its key
// (one after another, then 20 at once) makes one wallet transaction; every
// answer carries its id.
func TestAuthorizeRetriedWithItsKey(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		key := e.key()
		first := e.Do("POST", "/v1/wallet/authorize", body(phoneWaits, 1000), "Idempotency-Key", key)
		require.Equal(t, 200, first.Status, string(first.Body))
		again := e.Do("POST", "/v1/wallet/authorize", body(phoneWaits, 1000), "Idempotency-Key", key)
		require.Equal(t, 200, again.Status)
		assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
		assert.JSONEq(t, string(first.Body), string(again.Body))
		other := e.Do("POST", "/v1/wallet/authorize", body(phoneWaits, 2000), "Idempotency-Key", key)
		assert.Equal(t, 422, other.Status, "the key with another body")

		key = e.key()
		const n = 20
		resps := make([]*apitest.Resp, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				resps[i] = e.Do("POST", "/v1/wallet/authorize", body(phoneWaits, 3000), "Idempotency-Key", key)
			})
		}
		close(start)
		wg.Wait()
		ids := map[string]bool{}
		for _, r := range resps {
			switch r.Status {
			case 200:
				ids[r.Map(t)["walletTransactionId"].(string)] = true
			case 409: // a duplicate in flight: the client retries with the key
			default:
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
		}
		require.Len(t, ids, 1, "every success names the one transaction")
		assert.Equal(t, 2, e.count(), "one transaction per key")
		for id := range ids {
			assert.Equal(t, []string{EventCreated}, e.events(e.Account.ID, id))
		}
	})
}

// TestAnotherAccountsTransactionIs404Everywhere: every route answers another
// account's transaction exactly as a missing one, and changes nothing.
func TestAnotherAccountsTransactionIs404Everywhere(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		mine := e.succeeded(1000)
		_, otherKey := e.NewAccount(accounts.Test)
		for _, c := range []struct{ method, path string }{
			{"GET", "/v1/wallet/transaction/" + mine},
			{"POST", "/v1/wallet/" + mine + "/capture"},
			{"POST", "/v1/wallet/" + mine + "/cancel"},
			{"POST", "/v1/wallet/" + mine + "/refund"},
			{"POST", "/test-helpers/wallet/" + mine + "/confirm"},
			{"POST", "/test-helpers/wallet/" + mine + "/decline"},
		} {
			r := e.DoKey(otherKey, c.method, c.path, nil, "Idempotency-Key", e.key())
			assert.Equal(t, 404, r.Status, "%s %s: %s", c.method, c.path, r.Body)
		}
		r := e.DoKey(otherKey, "GET", "/v1/wallet/transactions", nil)
		require.Equal(t, 200, r.Status)
		assert.Empty(t, r.Map(t)["data"])
		assert.Equal(t, "SUCCESS", e.status(mine), "nothing changed")
		assert.Equal(t, []string{EventCreated, EventSucceeded}, e.events(e.Account.ID, mine))
	})
}

// TestCaptureCancelRefundFollowTheTable: each operation from each state it
// is allowed from, and 409 wallet_transaction_state from the others.
func TestCaptureCancelRefundFollowTheTable(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		conflict := func(path string, body any) {
			t.Helper()
			r := e.post(path, body)
			require.Equal(t, 409, r.Status, "%s: %s", path, r.Body)
			code, _ := errParam(t, r)
			assert.Equal(t, "wallet_transaction_state", code)
		}
		ok := func(path string, body any, status string) map[string]any {
			t.Helper()
			r := e.post(path, body)
			require.Equal(t, 200, r.Status, "%s: %s", path, r.Body)
			m := r.Map(t)
			assert.Equal(t, status, m["walletTransactionStatus"])
			return m
		}
		fresh := e.authorize(phoneWaits, 1000)
		conflict("/v1/wallet/"+fresh+"/capture", nil)
		conflict("/v1/wallet/"+fresh+"/refund", nil)
		ok("/v1/wallet/"+fresh+"/cancel", nil, "CANCELLED")
		conflict("/v1/wallet/"+fresh+"/cancel", nil)
		conflict("/test-helpers/wallet/"+fresh+"/confirm", nil)
		assert.Equal(t, 0, e.openEntries(), "cancel closed the open entry")

		id := e.succeeded(1000)
		conflict("/test-helpers/wallet/"+id+"/decline", nil)
		conflict("/v1/wallet/"+id+"/refund", nil)
		r := e.post("/v1/wallet/"+id+"/capture", map[string]any{"amount": 1001})
		require.Equal(t, 400, r.Status)
		code, param := errParam(t, r)
		assert.Equal(t, "amount_exceeds_authorized", code)
		assert.Equal(t, "amount", param)
		m := ok("/v1/wallet/"+id+"/capture", map[string]any{"amount": 600}, "CAPTURED")
		assert.EqualValues(t, 600, m["capturedAmount"])
		conflict("/v1/wallet/"+id+"/capture", map[string]any{"amount": 400}) // a partial capture is allowed once
		conflict("/v1/wallet/"+id+"/cancel", nil)

		full := e.succeeded(700)
		m = ok("/v1/wallet/"+full+"/capture", map[string]any{}, "CAPTURED")
		assert.EqualValues(t, 700, m["capturedAmount"], "no amount captures all")
		m = ok("/v1/wallet/"+full+"/refund", nil, "REFUNDED")
		assert.EqualValues(t, 700, m["refundedAmount"], "no amount refunds all that is left")
		conflict("/v1/wallet/"+full+"/refund", map[string]any{"amount": 1})
		assert.Equal(t, []string{EventCreated, EventSucceeded, EventCaptured, EventRefunded}, e.events(e.Account.ID, full))
	})
}

// TestRefundsUpToTheCapturedAmount: several partial refunds up to the
// captured amount; one beyond what is left is a 400 naming amount and
// changes nothing.
func TestRefundsUpToTheCapturedAmount(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		id := e.succeeded(1000)
		require.Equal(t, 200, e.post("/v1/wallet/"+id+"/capture", map[string]any{"amount": 800}).Status)
		r := e.post("/v1/wallet/"+id+"/refund", map[string]any{"amount": 801})
		require.Equal(t, 400, r.Status, "beyond the captured amount (the authorised 1000 does not count)")
		code, param := errParam(t, r)
		assert.Equal(t, "refund_exceeds_captured", code)
		assert.Equal(t, "amount", param)
		for i, want := range []string{"PARTIALLY_REFUNDED", "PARTIALLY_REFUNDED"} {
			r := e.post("/v1/wallet/"+id+"/refund", map[string]any{"amount": 300})
			require.Equal(t, 200, r.Status, string(r.Body))
			assert.Equal(t, want, r.Map(t)["walletTransactionStatus"], "refund %d", i)
		}
		r = e.post("/v1/wallet/"+id+"/refund", map[string]any{"amount": 201})
		require.Equal(t, 400, r.Status, "200 is left")
		m := e.get(id)
		assert.EqualValues(t, 600, m["refundedAmount"], "a refused refund changes nothing")
		assert.Equal(t, "PARTIALLY_REFUNDED", m["walletTransactionStatus"])
		r = e.post("/v1/wallet/"+id+"/refund", map[string]any{"amount": 200})
		require.Equal(t, 200, r.Status)
		assert.Equal(t, "REFUNDED", r.Map(t)["walletTransactionStatus"])
		for _, bad := range []any{0, -1, 10.5, "100"} {
			r := e.post("/v1/wallet/"+e.succeeded(10)+"/capture", map[string]any{"amount": bad})
			require.Equal(t, 400, r.Status, "%v: %s", bad, r.Body)
			_, param := errParam(t, r)
			assert.Equal(t, "amount", param)
		}
		assert.Equal(t, []string{EventCreated, EventSucceeded, EventCaptured, EventRefunded, EventRefunded, EventRefunded},
			e.events(e.Account.ID, id))
	})
}

// TestCaptureRacingCancel: 10 captures and 10 cancels of one SUCCESS
// transaction at once (each its own key): exactly one operation wins, every
// other answer is 409, and one event is written for the winner.
func TestCaptureRacingCancel(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		for round := 0; round < 3; round++ {
			id := e.succeeded(1000)
			const n = 20
			status := make([]int, n)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range n {
				op := "capture"
				if i%2 == 1 {
					op = "cancel"
				}
				wg.Go(func() {
					<-start
					status[i] = e.post("/v1/wallet/"+id+"/"+op, nil).Status
				})
			}
			close(start)
			wg.Wait()
			wins := 0
			var winner string
			for i, s := range status {
				switch s {
				case 200:
					wins++
					winner = map[bool]string{true: "CAPTURED", false: "CANCELLED"}[i%2 == 0]
				case 409:
				default:
					t.Fatalf("status %d", s)
				}
			}
			require.Equal(t, 1, wins, "exactly one operation wins: %v", status)
			assert.Equal(t, winner, e.status(id))
			evs := e.events(e.Account.ID, id)
			require.Len(t, evs, 3, "%v", evs)
			assert.Equal(t, map[string]string{"CAPTURED": EventCaptured, "CANCELLED": EventCancelled}[winner], evs[2])
		}
	})
}

// TestListFilters: status, orderReference and the created range filter; the
// list is newest first.
func TestListFilters(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		a := e.authorize(phoneWaits, 100)
		s := e.succeeded(200)
		m := body(phoneWaits, 300)
		m["orderReference"] = "special"
		r := e.post("/v1/wallet/authorize", m)
		require.Equal(t, 200, r.Status)
		c := r.Map(t)["walletTransactionId"].(string)
		list := func(q string) []string {
			r := e.Do("GET", "/v1/wallet/transactions"+q, nil)
			require.Equal(t, 200, r.Status, string(r.Body))
			var page struct {
				Data []Transaction `json:"data"`
			}
			r.JSON(t, &page)
			var ids []string
			for _, t := range page.Data {
				ids = append(ids, t.WalletTransactionID)
			}
			return ids
		}
		assert.Equal(t, []string{c, s, a}, list(""))
		assert.Equal(t, []string{s}, list("?status=SUCCESS"))
		assert.Equal(t, []string{c}, list("?orderReference=special"))
		assert.Equal(t, []string{c, a}, list("?status=NEW"))
		created := e.get(s)["createdAt"].(string)
		assert.Equal(t, []string{c, s}, list("?createdFrom="+created))
		assert.Equal(t, []string{s, a}, list("?createdTo="+created))
		for _, q := range []string{"?status=new", "?createdFrom=yesterday", "?limit=0", "?orderReference=" + "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"} {
			assert.Equal(t, 400, e.Do("GET", "/v1/wallet/transactions"+q, nil).Status, q)
		}
	})
}

// TestLiveKeysGetNoSandbox: no live wallet provider is configured, so a
// live key's authorisation is refused with the one live_mode_unavailable
// and nothing is written; a live transaction recorded before that never
// reaches the sandbox wallet (it fails with wallet_unavailable), and a live
// key cannot reach the test helpers.
func TestLiveKeysGetNoSandbox(t *testing.T) {
	e := newEnv(t, backend{"embedded", embeddedStore, embeddedQueue})
	live, key := e.NewAccount(accounts.Live)
	r := e.DoKey(key, "POST", "/v1/wallet/authorize", body(walletprovider.PhoneApprove, 1000), "Idempotency-Key", e.key())
	require.Equal(t, 403, r.Status, string(r.Body))
	assert.Equal(t, "live_mode_unavailable", r.Err(t)["code"])
	m := body(phoneWaits, 1000)
	m["currency"] = "EUR"
	r = e.DoKey(key, "POST", "/v1/wallet/authorize", m, "Idempotency-Key", e.key())
	assert.Equal(t, 403, r.Status, "live keys are not held to the sandbox wallet's currencies: the mode is decided first: %s", r.Body)
	assert.Empty(t, e.DoKey(key, "GET", "/v1/wallet/transactions", nil).Map(t)["data"], "nothing written")

	// A live transaction recorded before live keys were refused.
	now := e.Clock.Now().UTC()
	rec := &record{ID: ids.NewAt(now), AccountID: live.ID, Status: StatusNew, OrderReference: "old", Amount: 1000,
		Currency: "KZT", Phone: walletprovider.PhoneApprove, IIN: iinValid, Live: true, CreatedAt: now, UpdatedAt: now}
	item, err := rec.item()
	require.NoError(t, err)
	require.NoError(t, e.Deps.Store.Write(context.Background(), store.Put(item, store.IfAbsent), openPut(rec)))
	e.svc.enqueue(context.Background(), rec.AccountID, rec.ID, 0)
	h := e.DoKey(key, "POST", "/test-helpers/wallet/"+rec.ID+"/confirm", nil)
	assert.Equal(t, 403, h.Status, string(h.Body))
	e.drain()
	g := e.DoKey(key, "GET", "/v1/wallet/transaction/"+rec.ID, nil).Map(t)
	assert.Equal(t, "FAILED", g["walletTransactionStatus"], "the sandbox's approving phone does not approve a live transaction")
	assert.Equal(t, ReasonUnavailable, g["failureReason"])
}

// TestConcurrentDuplicatesReplay: 20 copies of one capture sent at once with
// one Idempotency-Key capture once, and every copy answers that capture: a
// copy that loses the race replays its twin's answer rather than a 409
// "already CAPTURED"; on both stores.
func TestConcurrentDuplicatesReplay(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		id := e.succeeded(1000)
		key := e.key()
		bodies := make([]string, 20)
		var wg sync.WaitGroup
		for i := range bodies {
			wg.Go(func() {
				r := e.Do("POST", "/v1/wallet/"+id+"/capture", map[string]any{"amount": 700}, "Idempotency-Key", key)
				bodies[i] = fmt.Sprint(r.Status, " ", string(r.Body))
			})
		}
		wg.Wait()
		for _, body := range bodies {
			assert.Equal(t, bodies[0], body)
		}
		assert.True(t, strings.HasPrefix(bodies[0], "200 "), bodies[0])
		assert.EqualValues(t, 700, e.get(id)["capturedAmount"])
		assert.Equal(t, []string{EventCreated, EventSucceeded, EventCaptured}, e.events(e.Account.ID, id))
	})
}

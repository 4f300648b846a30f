package balance

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/sandbox/payoutprocessor"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
	"github.com/paygate/paygate/shared/testkit/ledgertest"
)

// TestPayoutPaidFromAvailable: a capture funds the balance (available at
// once in the sandbox), a payout reserves its amount, the consumer pays it,
// and the books agree; on both stores with both queues.
func TestPayoutPaidFromAvailable(t *testing.T) {
	queues(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		e.fund(10000, "EUR")
		assert.Equal(t, int64(10000), e.balances()["EUR"].Available)
		card := e.card(cardPaid)
		id := e.payout(card, 2500)
		bal := e.balances()["EUR"]
		assert.Equal(t, int64(7500), bal.Available)
		assert.Equal(t, int64(2500), bal.Reserved)

		assert.Equal(t, 1, e.drainAtLeast(1))
		p := e.getPayout(id)
		assert.Equal(t, "paid", p["status"])
		assert.NotEmpty(t, p["paid_at"])
		assert.Equal(t, map[string]any{"brand": "visa", "last4": "5556"}, p["card"])
		bal = e.balances()["EUR"]
		assert.Equal(t, int64(7500), bal.Available)
		assert.Equal(t, int64(0), bal.Reserved)
		assert.Equal(t, []ledger.EntryType{ledger.EntryPayout, ledger.EntryPayoutPaid}, e.entriesOf(ledger.Source{Type: ledger.SourcePayout, ID: id}))
		paidOut, err := ledgertest.ExternalTotal(context.Background(), e.Deps.Store, e.Account.ID, "EUR", ledger.PaidOut)
		require.NoError(t, err)
		assert.Equal(t, int64(2500), paidOut, "paid_out counts what left the books")
		e.check()
		assert.Zero(t, e.drain(), "the message was acknowledged")
	})
}

// TestPayoutOutcomes: each sandbox card's outcome; a refused payout's
// reservation returns to available; the timeout card fails with
// processor_timeout after MaxPayAttempts unanswered calls; on both stores.
func TestPayoutOutcomes(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		e.fund(100000, "EUR")
		for _, c := range []struct{ number, status, reason string }{
			{cardPaidMC, "paid", ""},
			{cardNoFunds, "failed", ReasonInsufficientFunds},
			{cardExpired, "failed", ReasonExpiredCard},
			{cardDeclined, "failed", ReasonDeclined},
			{cardNotSbx, "failed", payoutprocessor.ReasonNotSandboxCard},
		} {
			id := e.payout(e.card(c.number), 1000)
			again, err := e.svc.Process(context.Background(), e.Account.ID, id)
			require.NoError(t, err)
			assert.Zero(t, again)
			p := e.getPayout(id)
			assert.Equal(t, c.status, p["status"], c.number)
			if c.reason != "" {
				assert.Equal(t, c.reason, p["failure_reason"], c.number)
				assert.Equal(t, []ledger.EntryType{ledger.EntryPayout, ledger.EntryPayoutFailed}, e.entriesOf(ledger.Source{Type: ledger.SourcePayout, ID: id}))
			}
		}
		assert.Equal(t, int64(99000), e.balances()["EUR"].Available, "only the paid payout left the balance")

		id := e.payout(e.card(cardTimeout), 700)
		for i := 1; i < MaxPayAttempts; i++ {
			again, err := e.svc.Process(context.Background(), e.Account.ID, id)
			require.NoError(t, err)
			assert.Positive(t, again, "no answer: try again later")
			assert.Equal(t, "in_transit", e.getPayout(id)["status"], "sent, not answered")
		}
		assert.Equal(t, int64(700), e.balances()["EUR"].Reserved)
		again, err := e.svc.Process(context.Background(), e.Account.ID, id)
		require.NoError(t, err)
		assert.Zero(t, again)
		p := e.getPayout(id)
		assert.Equal(t, "failed", p["status"])
		assert.Equal(t, ReasonProcessorTimeout, p["failure_reason"])
		assert.Equal(t, int64(0), e.balances()["EUR"].Reserved)
		assert.Equal(t, int64(99000), e.balances()["EUR"].Available)
		e.check()
	})
}

// TestPayoutAboveAvailable: a payout above the available balance is a 400
// insufficient_balance naming amount.value; nothing is reserved, stored or
// queued, and the same key runs again once the balance covers it.
func TestPayoutAboveAvailable(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		e.fund(1000, "EUR")
		card := e.card(cardPaid)
		key := e.key()
		r := e.Do("POST", "/v1/payouts", payoutBody(card, 1001), "Idempotency-Key", key)
		require.Equal(t, 400, r.Status, string(r.Body))
		code, param := errOf(t, r)
		assert.Equal(t, "insufficient_balance", code)
		assert.Equal(t, "amount.value", param)
		assert.Contains(t, r.Err(t)["message"], "10.00 EUR")
		bal := e.balances()["EUR"]
		assert.Equal(t, int64(1000), bal.Available)
		assert.Equal(t, int64(0), bal.Reserved)
		var list struct {
			Data []map[string]any `json:"data"`
		}
		e.Do("GET", "/v1/payouts", nil).JSON(t, &list)
		assert.Empty(t, list.Data, "no payout stored")
		assert.Zero(t, e.drain(), "nothing queued")

		// Another currency has no balance at all.
		r = e.post("/v1/payouts", map[string]any{"amount": map[string]any{"value": 1, "currency": "USD"}, "payout_card_id": card, "reference": "x"})
		require.Equal(t, 400, r.Status, string(r.Body))
		code, _ = errOf(t, r)
		assert.Equal(t, "insufficient_balance", code)

		e.fund(1, "EUR")
		r = e.Do("POST", "/v1/payouts", payoutBody(card, 1001), "Idempotency-Key", key)
		require.Equal(t, 201, r.Status, "the refused attempt was not recorded: %s", r.Body)
		r2 := e.Do("POST", "/v1/payouts", payoutBody(card, 1001), "Idempotency-Key", key)
		require.Equal(t, 201, r2.Status)
		assert.Equal(t, "true", r2.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, r.Map(t)["id"], r2.Map(t)["id"])
		assert.Equal(t, int64(1001), e.balances()["EUR"].Reserved, "one reservation")
		e.check()
	})
}

// TestConcurrentPayoutsExceedingTheBalance: 50 payouts at once that together
// ask for 1.5 times the balance: the successful ones fit exactly (33 of
// 300 out of 10000), the rest are 400 insufficient_balance, the balance
// never goes below zero, and the ledger check finds no difference; on both
// stores.
func TestConcurrentPayoutsExceedingTheBalance(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		e.fund(10000, "EUR")
		card := e.card(cardPaid)
		resps := burst(50, func(int) *apitest.Resp { return e.post("/v1/payouts", payoutBody(card, 300)) })
		ok, refused := 0, 0
		for _, r := range resps {
			switch r.Status {
			case 201:
				ok++
			case 400:
				code, _ := errOf(t, r)
				assert.Equal(t, "insufficient_balance", code)
				refused++
			default:
				t.Errorf("unexpected %d: %s", r.Status, r.Body)
			}
		}
		assert.Equal(t, 33, ok, "33 x 300 = 9900 fit in 10000; a 34th does not")
		assert.Equal(t, 17, refused)
		bal := e.balances()["EUR"]
		assert.Equal(t, int64(100), bal.Available)
		assert.Equal(t, int64(9900), bal.Reserved)
		r := e.check()
		assert.Empty(t, r.Negative)
		assert.Equal(t, 33, e.drainAtLeast(33))
		bal = e.balances()["EUR"]
		assert.Equal(t, int64(100), bal.Available)
		assert.Equal(t, int64(0), bal.Reserved)
		e.check()
	})
}

// TestPayoutConsumerCrashAfterTheProcessorAnswered: the consumer dies after
// the processor paid and before it recorded the answer (its write never
// happens); the message comes back, the processor (idempotent by payout id)
// answers the same without paying again, and the payout is paid once with
// one entry; on both stores with both queues.
func TestPayoutConsumerCrashAfterTheProcessorAnswered(t *testing.T) {
	queues(t, func(t *testing.T, b backend) {
		var crashes atomic.Int64
		crashOnce := func(st store.Store) store.Store {
			return failingStore{Store: st, fail: func(ops []store.Op) bool {
				for _, op := range ops {
					if op.Item.PK == entryPKFor(op) && strings.Contains(string(op.Item.Data), `"payout_paid"`) {
						return crashes.Add(1) == 1
					}
				}
				return false
			}}
		}
		e := newEnv(t, b, options{store: crashOnce})
		e.fund(5000, "EUR")
		id := e.payout(e.card(cardPaid), 4000)

		assert.Equal(t, 1, e.drainAtLeast(1), "delivered once: the processor pays, the consumer dies before its write")
		assert.EqualValues(t, 1, e.proc.Calls.Load())
		res, found, err := e.proc.Lookup(context.Background(), id)
		require.NoError(t, err)
		require.True(t, found, "the processor paid")
		assert.True(t, res.Paid)
		assert.Equal(t, "in_transit", e.getPayout(id)["status"], "its answer was not recorded")

		// The message comes back after its visibility; the consumer runs again.
		deadline := time.Now().Add(15 * time.Second)
		for e.getPayout(id)["status"] == "in_transit" && time.Now().Before(deadline) {
			e.drain()
			time.Sleep(200 * time.Millisecond)
		}
		assert.Equal(t, "paid", e.getPayout(id)["status"])
		assert.EqualValues(t, 2, e.proc.Calls.Load(), "asked twice")
		assert.Equal(t, []ledger.EntryType{ledger.EntryPayout, ledger.EntryPayoutPaid}, e.entriesOf(ledger.Source{Type: ledger.SourcePayout, ID: id}),
			"one payout, one paid entry")
		paidOut, err := ledgertest.ExternalTotal(context.Background(), e.Deps.Store, e.Account.ID, "EUR", ledger.PaidOut)
		require.NoError(t, err)
		assert.Equal(t, int64(4000), paidOut, "paid out once")
		assert.Equal(t, int64(1000), e.balances()["EUR"].Available)
		e.check()
	})
}

// entryPKFor is the entries partition of the op's account (the crash hook
// fails the write that holds a payout_paid entry).
func entryPKFor(op store.Op) string {
	if strings.HasPrefix(op.Item.PK, "ment#") {
		return op.Item.PK
	}
	return "-"
}

// TestSettlementTaskRequeuesLostMessages: a payout whose message was lost
// (the queue was down after the commit) is sent again by the settlement
// task once it is RequeueAge old, and paid.
func TestSettlementTaskRequeuesLostMessages(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		e.fund(1000, "EUR")
		id := e.payout(e.card(cardPaid), 600)
		assert.Equal(t, 1, e.drainAtLeast(1))
		// A second payout whose message is lost: drop it from the queue.
		id2 := e.payout(e.card(cardPaid), 100)
		msgs, err := e.Deps.Queue.Receive(context.Background(), "payouts", 10, time.Minute, 0)
		require.NoError(t, err)
		require.Len(t, msgs, 1)
		require.NoError(t, e.Deps.Queue.Delete(context.Background(), "payouts", msgs[0].Receipt))
		_, requeued, err := e.svc.Settle(context.Background())
		require.NoError(t, err)
		assert.Zero(t, requeued, "not old enough")
		e.Clock.Advance(RequeueAge + time.Second)
		_, requeued, err = e.svc.Settle(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1, requeued, "the pending payout only")
		e.drain()
		assert.Equal(t, "paid", e.getPayout(id)["status"])
		assert.Equal(t, "paid", e.getPayout(id2)["status"])
		e.check()
	})
}

// TestPayoutCards: a card is saved without its number (the answer, the
// stored record and the logs hold only its last four digits), read, listed
// and deleted; bad cards are a 400 naming the field; a live key gets 403.
func TestPayoutCards(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		apitest.RememberSecret(cardPaid)
		r := e.post("/v1/payouts/cards", map[string]any{"number": cardPaid, "expiry_month": 3, "expiry_year": expiryYear,
			"holder_name": " J. Smith ", "metadata": map[string]any{"k": "v"}})
		require.Equal(t, 201, r.Status, string(r.Body))
		assert.NotContains(t, string(r.Body), cardPaid)
		c := r.Map(t)
		assert.Equal(t, "5556", c["last4"])
		assert.Equal(t, "visa", c["brand"])
		assert.Equal(t, "J. Smith", c["holder_name"])
		id := c["id"].(string)
		it, err := e.Deps.Store.Get(context.Background(), cardKey(e.Account.ID, id))
		require.NoError(t, err)
		assert.NotContains(t, string(it.Data), cardPaid, "the number is not stored")
		assert.NotContains(t, string(it.Data), cardPaid[6:12], "nor its middle digits")
		assert.Equal(t, 200, e.Do("GET", "/v1/payouts/cards/"+id, nil).Status)
		var list struct {
			Data []map[string]any `json:"data"`
		}
		e.Do("GET", "/v1/payouts/cards", nil).JSON(t, &list)
		assert.Len(t, list.Data, 1)

		now := time.Now().UTC()
		for _, c := range []struct {
			name  string
			body  map[string]any
			param string
			code  string
		}{
			{"luhn", map[string]any{"number": "4000056655665557"}, "number", "invalid_number"},
			{"spaces", map[string]any{"number": "4000 0566 5566 5556"}, "number", ""},
			{"amex", map[string]any{"number": "370000000000002"}, "number", "card_not_supported"},
			{"month 13", map[string]any{"expiry_month": 13}, "expiry_month", ""},
			{"expired", map[string]any{"expiry_month": int(now.Month()), "expiry_year": now.Year() - 1}, "expiry_year", "expired_card"},
			{"far future", map[string]any{"expiry_year": now.Year() + 21}, "expiry_year", ""},
			{"blank holder", map[string]any{"holder_name": "   "}, "holder_name", ""},
			{"no number", map[string]any{"number": nil}, "number", ""},
		} {
			body := map[string]any{"number": cardPaid, "expiry_month": 3, "expiry_year": expiryYear, "holder_name": "J. Smith"}
			for k, v := range c.body {
				if v == nil {
					delete(body, k)
				} else {
					body[k] = v
				}
			}
			r := e.post("/v1/payouts/cards", body)
			require.Equal(t, 400, r.Status, "%s: %s", c.name, r.Body)
			code, param := errOf(t, r)
			assert.Equal(t, c.param, param, c.name)
			if c.code != "" {
				assert.Equal(t, c.code, code, c.name)
			}
			assert.NotContains(t, string(r.Body), "0566", "%s: the answer does not echo the number", c.name)
		}

		_, liveKey := e.NewAccount(accounts.Live)
		r = e.DoKey(liveKey, "POST", "/v1/payouts/cards", map[string]any{"number": cardPaid, "expiry_month": 3, "expiry_year": expiryYear, "holder_name": "J"},
			"Idempotency-Key", e.key())
		require.Equal(t, 403, r.Status, string(r.Body))

		r = e.Do("DELETE", "/v1/payouts/cards/"+id, nil)
		require.Equal(t, 200, r.Status, string(r.Body))
		assert.Equal(t, true, r.Map(t)["deleted"])
		assert.Equal(t, 404, e.Do("GET", "/v1/payouts/cards/"+id, nil).Status)
		assert.Equal(t, 404, e.Do("DELETE", "/v1/payouts/cards/"+id, nil).Status)
	})
}

// TestAnotherAccountsPayoutsAndCardsAre404: another account's payout and
// card answer 404 on every route, exactly as missing ones; a payout to
// another account's card is a 404 naming payout_card_id.
func TestAnotherAccountsPayoutsAndCardsAre404(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		e.fund(1000, "EUR")
		card := e.card(cardPaid)
		id := e.payout(card, 100)
		_, other := e.NewAccount(accounts.Test)
		for _, c := range []struct{ method, path string }{
			{"GET", "/v1/payouts/" + id}, {"GET", "/v1/payouts/" + ids.New()},
			{"GET", "/v1/payouts/cards/" + card}, {"DELETE", "/v1/payouts/cards/" + card},
		} {
			r := e.DoKey(other, c.method, c.path, nil)
			assert.Equal(t, 404, r.Status, "%s %s: %s", c.method, c.path, r.Body)
		}
		r := e.DoKey(other, "POST", "/v1/payouts", payoutBody(card, 1), "Idempotency-Key", e.key())
		require.Equal(t, 404, r.Status, string(r.Body))
		_, param := errOf(t, r)
		assert.Equal(t, "payout_card_id", param)
		var list struct {
			Data []map[string]any `json:"data"`
		}
		e.DoKey(other, "GET", "/v1/payouts", nil).JSON(t, &list)
		assert.Empty(t, list.Data)
		assert.Equal(t, 200, e.Do("GET", "/v1/payouts/cards/"+card, nil).Status, "still the owner's")
	})
}

// TestPayoutBadInput: bad payout bodies are a 400 naming the field, and
// reserve nothing.
func TestPayoutBadInput(t *testing.T) {
	e := newEnv(t, backend{"embedded", embeddedStore, embeddedQueue}, options{})
	e.fund(1000, "EUR")
	card := e.card(cardPaid)
	for _, c := range []struct {
		name  string
		body  map[string]any
		param string
	}{
		{"zero", map[string]any{"amount": map[string]any{"value": 0, "currency": "EUR"}}, "amount.value"},
		{"negative", map[string]any{"amount": map[string]any{"value": -5, "currency": "EUR"}}, "amount.value"},
		{"fraction", map[string]any{"amount": map[string]any{"value": 1.5, "currency": "EUR"}}, "amount.value"},
		{"currency", map[string]any{"amount": map[string]any{"value": 5, "currency": "eur"}}, "amount.currency"},
		{"no currency", map[string]any{"amount": map[string]any{"value": 5}}, "amount.currency"},
		{"card not uuid", map[string]any{"payout_card_id": "abc"}, "payout_card_id"},
		{"empty reference", map[string]any{"reference": ""}, "reference"},
		{"unknown field", map[string]any{"fee": 1}, "fee"},
	} {
		body := payoutBody(card, 100)
		for k, v := range c.body {
			body[k] = v
		}
		r := e.post("/v1/payouts", body)
		require.Equal(t, 400, r.Status, "%s: %s", c.name, r.Body)
		_, param := errOf(t, r)
		assert.Equal(t, c.param, param, c.name)
	}
	r := e.Do("POST", "/v1/payouts", payoutBody(card, 100))
	require.Equal(t, 400, r.Status, "no Idempotency-Key")
	assert.Equal(t, int64(1000), e.balances()["EUR"].Available)
}

package beneficiaries

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/sandbox/bank"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/domain/remittance"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/queue/consumer"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

func TestSandboxIBANsAreValid(t *testing.T) {
	for iban, outcome := range bank.IBANs {
		assert.Len(t, iban, 20, outcome)
		assert.Equal(t, outcome, bank.Outcome(iban))
	}
	assert.Equal(t, "KZ699990000000000001", ibanPaid, "docs/beneficiaries.md's table")
	assert.Equal(t, "KZ429990000000000002", ibanClosed)
	assert.Equal(t, "KZ159990000000000003", ibanMismatch)
	assert.Equal(t, "KZ859990000000000004", ibanSlow)
	assert.Equal(t, "KZ589990000000000005", ibanNoAnswer)
	assert.Equal(t, bank.OutcomePaid, bank.Outcome(ibanOther))
}

// TestPaymentOrderOutcomes: an order reserves the amount from the
// beneficiary's balance (created, payment_order.created); the consumer has
// the sandbox bank pay it by the beneficiary's IBAN: paid (reserve -> bank)
// or failed with the bank's reason (the reserve back to the beneficiary),
// each with its event and one entry; on both stores.
func TestPaymentOrderOutcomes(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		acct := e.Account.ID
		for _, c := range []struct {
			iban, status, reason string
			entry                ledger.EntryType
		}{
			{ibanPaid, "paid", "", ledger.EntryPaymentOrderPaid},
			{ibanOther, "paid", "", ledger.EntryPaymentOrderPaid},
			{ibanClosed, "failed", ReasonAccountClosed, ledger.EntryPaymentOrderFailed},
			{ibanMismatch, "failed", ReasonBeneficiaryMismatch, ledger.EntryPaymentOrderFailed},
		} {
			ben := e.beneficiary(personBody(c.iban))
			e.credit(ben, 10000, "KZT")
			r := e.post("/v1/merchants/settlement-payment-orders", orderBody(ben, 7000, "req-"+c.iban))
			require.Equal(t, 201, r.Status, string(r.Body))
			o := r.Map(t)
			id := o["id"].(string)
			assert.Equal(t, "created", o["status"])
			assert.Equal(t, "payment_order", o["object"])
			assert.Equal(t, acct, o["merchant_id"])
			assert.Equal(t, c.iban, o["bank_account"].(map[string]any)["iban"])
			assert.EqualValues(t, 3000, e.bal(acct, "KZT", ledger.Beneficiary(ben)))
			assert.EqualValues(t, 7000, e.bal(acct, "KZT", ledger.BeneficiaryReserved(ben)))

			assert.Equal(t, 1, e.drain())
			got := e.getOrder(id)
			assert.Equal(t, c.status, got["status"], c.iban)
			if c.reason != "" {
				assert.Equal(t, c.reason, got["failure_reason"])
				assert.NotEmpty(t, got["failed_at"])
				assert.EqualValues(t, 10000, e.bal(acct, "KZT", ledger.Beneficiary(ben)), "the reserve came back")
			} else {
				assert.NotEmpty(t, got["paid_at"])
				assert.EqualValues(t, 3000, e.bal(acct, "KZT", ledger.Beneficiary(ben)))
			}
			assert.EqualValues(t, 0, e.bal(acct, "KZT", ledger.BeneficiaryReserved(ben)))
			assert.Equal(t, []ledger.EntryType{ledger.EntryPaymentOrder, c.entry}, e.entriesOf(ledger.Source{Type: ledger.SourcePaymentOrder, ID: id}))
		}
		assert.EqualValues(t, 14000, e.bal(acct, "KZT", ledger.Bank), "two orders paid to the bank")
		// The events: created and the outcome for each order.
		evs := eventTypes(t, e)
		assert.Equal(t, 4, count(evs, EventOrderCreated))
		assert.Equal(t, 2, count(evs, EventOrderPaid))
		assert.Equal(t, 2, count(evs, EventOrderFailed))

		var list struct {
			Data []map[string]any `json:"data"`
		}
		e.Do("GET", "/v1/merchants/settlement-payment-orders?status=failed", nil).JSON(t, &list)
		assert.Len(t, list.Data, 2)
		e.check(acct)
	})
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

// eventTypes lists the account's event records' types (the events table,
// as the webhook publisher reads it).
func eventTypes(t *testing.T, e *env) []string {
	t.Helper()
	q := eventlog.Newest(e.Account.ID, "")
	q.Limit = 1000
	page, err := e.Deps.Store.Query(context.Background(), q)
	require.NoError(t, err)
	var out []string
	for _, it := range page.Items {
		r, err := eventlog.Decode(it)
		require.NoError(t, err)
		assert.False(t, it.ExpiresAt.IsZero(), "every event record expires")
		out = append(out, r.Type)
	}
	return out
}

// TestSlowAndSilentBank: the slow IBAN's order stays created while the bank
// is paying it and is paid once SlowFor has passed; the no-answer IBAN's
// order is asked three times, then the bank (which has no record of it)
// is looked up and the order fails with bank_timeout, its reserve
// released; on both stores.
func TestSlowAndSilentBank(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		acct := e.Account.ID
		slow := e.beneficiary(personBody(ibanSlow))
		e.credit(slow, 5000, "KZT")
		r := e.post("/v1/merchants/settlement-payment-orders", orderBody(slow, 5000, "req-slow"))
		require.Equal(t, 201, r.Status, string(r.Body))
		id := r.Map(t)["id"].(string)
		assert.Equal(t, 1, e.drain())
		assert.Equal(t, "created", e.getOrder(id)["status"], "the bank is paying it")
		e.Clock.Advance(remittance.RetryWhileInProcess + 2*time.Second)
		assert.Equal(t, 1, e.drain())
		assert.Equal(t, "created", e.getOrder(id)["status"], "still paying")
		e.Clock.Advance(bank.SlowFor)
		assert.Equal(t, 1, e.drain())
		assert.Equal(t, "paid", e.getOrder(id)["status"])
		assert.EqualValues(t, 3, e.bank.Calls.Load())

		silent := e.beneficiary(personBody(ibanNoAnswer))
		e.credit(silent, 5000, "KZT")
		r = e.post("/v1/merchants/settlement-payment-orders", orderBody(silent, 4000, "req-silent"))
		require.Equal(t, 201, r.Status, string(r.Body))
		id = r.Map(t)["id"].(string)
		for i := 0; i < MaxBankAttempts && e.getOrder(id)["status"] == "created"; i++ {
			assert.Equal(t, 1, e.drain(), "attempt %d", i+1)
			e.Clock.Advance(remittance.RetryAfterNoAnswer*time.Duration(i+1) + 2*time.Second)
		}
		o := e.getOrder(id)
		assert.Equal(t, "failed", o["status"])
		assert.Equal(t, ReasonBankTimeout, o["failure_reason"])
		assert.EqualValues(t, 5000, e.bal(acct, "KZT", ledger.Beneficiary(silent)), "the reserve came back")
		e.check(acct)
	})
}

// TestConcurrentPaymentOrdersExceedingTheBalance: 30 payment orders at once
// that together ask for 1.5 times what the beneficiary holds: the ones that
// succeed fit exactly (20 of 500 out of 10000), the rest are 400
// insufficient_balance, nothing goes below zero and the ledger check finds
// no difference, before and after the bank pays them; on both stores.
func TestConcurrentPaymentOrdersExceedingTheBalance(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		acct := e.Account.ID
		ben := e.beneficiary(personBody(ibanPaid))
		e.credit(ben, 10000, "KZT")
		resps := burst(30, func(i int) *apitest.Resp {
			return e.post("/v1/merchants/settlement-payment-orders", orderBody(ben, 500, fmt.Sprintf("req-burst-%d", i)))
		})
		ok, refused := 0, 0
		for _, r := range resps {
			switch r.Status {
			case 201:
				ok++
			case 400:
				code, param := errOf(t, r)
				assert.Equal(t, "insufficient_balance", code)
				assert.Equal(t, "amount.value", param)
				refused++
			default:
				t.Errorf("unexpected %d: %s", r.Status, r.Body)
			}
		}
		assert.Equal(t, 20, ok, "20 x 500 = 10000 fit; a 21st does not")
		assert.Equal(t, 10, refused)
		assert.EqualValues(t, 0, e.bal(acct, "KZT", ledger.Beneficiary(ben)))
		assert.EqualValues(t, 10000, e.bal(acct, "KZT", ledger.BeneficiaryReserved(ben)))
		r := e.check(acct)
		assert.Empty(t, r.Negative)
		assert.Equal(t, 20, e.drain())
		assert.EqualValues(t, 0, e.bal(acct, "KZT", ledger.BeneficiaryReserved(ben)))
		assert.EqualValues(t, 10000, e.bal(acct, "KZT", ledger.Bank))
		assert.EqualValues(t, 0, e.bal(acct, "KZT", ledger.BeneficiariesHeld))
		e.check(acct)
	})
}

// TestSameRequestIDIsOneOrder: the same order with the same request_id and a
// new Idempotency-Key is one order: the second answers 200 with the first
// order as it is now (and its key replays that 200); other values under the
// same request_id are a 422 request_id_reused; ten racing requests with one
// request_id and ten keys make one order and one reservation; on both
// stores.
func TestSameRequestIDIsOneOrder(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		acct := e.Account.ID
		ben := e.beneficiary(personBody(ibanPaid))
		e.credit(ben, 10000, "KZT")
		body := orderBody(ben, 3000, "req-once")
		r := e.post("/v1/merchants/settlement-payment-orders", body)
		require.Equal(t, 201, r.Status, string(r.Body))
		first := r.Map(t)
		e.drain()

		key2 := e.key()
		r = e.Do("POST", "/v1/merchants/settlement-payment-orders", body, "Idempotency-Key", key2)
		require.Equal(t, 200, r.Status, string(r.Body))
		second := r.Map(t)
		assert.Equal(t, first["id"], second["id"], "one order")
		assert.Equal(t, "paid", second["status"], "as it is now")
		r = e.Do("POST", "/v1/merchants/settlement-payment-orders", body, "Idempotency-Key", key2)
		require.Equal(t, 200, r.Status)
		assert.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))
		assert.EqualValues(t, 7000, e.bal(acct, "KZT", ledger.Beneficiary(ben)), "one reservation")

		other := orderBody(ben, 3001, "req-once")
		r = e.post("/v1/merchants/settlement-payment-orders", other)
		require.Equal(t, 422, r.Status, string(r.Body))
		code, param := errOf(t, r)
		assert.Equal(t, "request_id_reused", code)
		assert.Equal(t, "request_id", param)

		race := orderBody(ben, 1000, "req-race")
		resps := burst(10, func(int) *apitest.Resp { return e.post("/v1/merchants/settlement-payment-orders", race) })
		created, same := 0, 0
		var id any
		for _, r := range resps {
			switch r.Status {
			case 201:
				created++
			case 200:
				same++
			default:
				t.Fatalf("unexpected %d: %s", r.Status, r.Body)
			}
			if id == nil {
				id = r.Map(t)["id"]
			}
			assert.Equal(t, id, r.Map(t)["id"])
		}
		assert.Equal(t, 1, created)
		assert.Equal(t, 9, same)
		assert.EqualValues(t, 6000, e.bal(acct, "KZT", ledger.Beneficiary(ben)), "one more reservation")
		var list struct {
			Data []map[string]any `json:"data"`
		}
		e.Do("GET", "/v1/merchants/settlement-payment-orders?beneficiary_id="+ben, nil).JSON(t, &list)
		assert.Len(t, list.Data, 2)
		e.check(acct)
	})
}

// TestConsumerCrashAfterTheBankAnswered: the consumer dies after the bank
// paid and before it recorded the answer (its write never happens); the
// message comes back, the bank (idempotent by order id) answers the same
// without paying again, and the order is paid once with one entry; on both
// stores with both queues.
func TestConsumerCrashAfterTheBankAnswered(t *testing.T) {
	queues(t, func(t *testing.T, b backend) {
		var crashes atomic.Int64
		crashOnce := func(st store.Store) store.Store {
			return failingStore{Store: st, fail: func(ops []store.Op) bool {
				return holdsEntry(ops, ledger.EntryPaymentOrderPaid) && crashes.Add(1) == 1
			}}
		}
		e := newEnv(t, b, options{store: crashOnce})
		acct := e.Account.ID
		ben := e.beneficiary(personBody(ibanPaid))
		e.credit(ben, 5000, "KZT")
		r := e.post("/v1/merchants/settlement-payment-orders", orderBody(ben, 4000, "req-crash"))
		require.Equal(t, 201, r.Status, string(r.Body))
		id := r.Map(t)["id"].(string)

		assert.Equal(t, 1, e.drain(), "delivered once: the bank pays, the consumer dies before its write")
		assert.EqualValues(t, 1, e.bank.Calls.Load())
		res, found, err := e.bank.Lookup(context.Background(), id)
		require.NoError(t, err)
		require.True(t, found, "the bank paid")
		assert.True(t, res.Paid)
		assert.Equal(t, "created", e.getOrder(id)["status"], "its answer was not recorded")

		deadline := time.Now().Add(15 * time.Second)
		for e.getOrder(id)["status"] == "created" && time.Now().Before(deadline) {
			e.Clock.Advance(consumer.RetryAfterError + 2*time.Second)
			e.drain()
			time.Sleep(200 * time.Millisecond)
		}
		assert.Equal(t, "paid", e.getOrder(id)["status"])
		assert.EqualValues(t, 2, e.bank.Calls.Load(), "asked twice")
		assert.Equal(t, []ledger.EntryType{ledger.EntryPaymentOrder, ledger.EntryPaymentOrderPaid},
			e.entriesOf(ledger.Source{Type: ledger.SourcePaymentOrder, ID: id}), "one outcome, one entry")
		assert.EqualValues(t, 4000, e.bal(acct, "KZT", ledger.Bank), "paid out once")
		assert.Equal(t, 1, count(eventTypes(t, e), EventOrderPaid), "one payment_order.paid")
		e.check(acct)
	})
}

// TestSettlementTaskRequeuesLostOrders: an order whose message was lost
// (the queue was down after the commit) is sent again by the sweep once it
// is RequeueAge old, and paid.
func TestSettlementTaskRequeuesLostOrders(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		ben := e.beneficiary(personBody(ibanPaid))
		e.credit(ben, 1000, "KZT")
		r := e.post("/v1/merchants/settlement-payment-orders", orderBody(ben, 600, "req-lost"))
		require.Equal(t, 201, r.Status, string(r.Body))
		id := r.Map(t)["id"].(string)
		msgs, err := e.Deps.Queue.Receive(context.Background(), queue.PaymentOrders, 10, time.Minute, 0)
		require.NoError(t, err)
		require.Len(t, msgs, 1)
		require.NoError(t, e.Deps.Queue.Delete(context.Background(), queue.PaymentOrders, msgs[0].Receipt))
		res, err := e.svc.Sweep(context.Background())
		require.NoError(t, err)
		assert.Zero(t, res.Requeued, "not old enough")
		e.Clock.Advance(RequeueAge + time.Second)
		res, err = e.svc.Sweep(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1, res.Requeued)
		e.drain()
		assert.Equal(t, "paid", e.getOrder(id)["status"])
		res, err = e.svc.Sweep(context.Background())
		require.NoError(t, err)
		assert.Zero(t, res.Requeued, "a decided order leaves the index")
		e.check(e.Account.ID)
	})
}

// TestPaymentOrderBadInput: a purpose code of two digits and the other
// rules are a 400 naming the field, a disabled beneficiary a 409, a live
// key a 403; nothing is reserved or stored; on both stores.
func TestPaymentOrderBadInput(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		ben := e.beneficiary(personBody(ibanPaid))
		e.credit(ben, 1000, "KZT")
		with := func(k string, v any) map[string]any {
			body := orderBody(ben, 100, "req-bad")
			if v == nil {
				delete(body, k)
			} else {
				body[k] = v
			}
			return body
		}
		for _, c := range []struct {
			name  string
			body  map[string]any
			param string
		}{
			{"a purpose code of two digits", with("purpose_code", "11"), "purpose_code"},
			{"a purpose code with a letter", with("purpose_code", "1a9"), "purpose_code"},
			{"no purpose code", with("purpose_code", nil), "purpose_code"},
			{"no request_id", with("request_id", nil), "request_id"},
			{"a request_id with a space", with("request_id", "req 1"), "request_id"},
			{"a request_id of 65 characters", with("request_id", fmt.Sprintf("%065d", 1)), "request_id"},
			{"no description", with("description", nil), "description"},
			{"an empty description", with("description", ""), "description"},
			{"a zero amount", with("amount", map[string]any{"value": 0, "currency": "KZT"}), "amount.value"},
			{"no amount", with("amount", nil), "amount"},
			{"a beneficiary_id that is no UUID", with("beneficiary_id", "ben-1"), "beneficiary_id"},
		} {
			r := e.post("/v1/merchants/settlement-payment-orders", c.body)
			require.Equal(t, 400, r.Status, "%s: %s", c.name, r.Body)
			_, param := errOf(t, r)
			assert.Equal(t, c.param, param, c.name)
		}
		r := e.post("/v1/merchants/settlement-payment-orders", orderBody(ben, 1001, "req-big"))
		require.Equal(t, 400, r.Status, string(r.Body))
		code, _ := errOf(t, r)
		assert.Equal(t, "insufficient_balance", code)
		r = e.post("/v1/merchants/settlement-payment-orders", orderBody("0190a6c2-3b7e-7d4c-9a51-2f6e8b1c0d42", 1, "req-missing"))
		require.Equal(t, 404, r.Status, string(r.Body))

		require.Equal(t, 200, e.post("/v1/merchants/beneficiaries/"+ben, map[string]any{"status": "disabled"}).Status)
		r = e.post("/v1/merchants/settlement-payment-orders", orderBody(ben, 100, "req-disabled"))
		require.Equal(t, 409, r.Status, string(r.Body))
		code, _ = errOf(t, r)
		assert.Equal(t, "beneficiary_disabled", code)

		_, live := e.NewAccount(accounts.Live)
		r = e.DoKey(live, "POST", "/v1/merchants/settlement-payment-orders", orderBody(ben, 100, "req-live"), "Idempotency-Key", e.key())
		require.Equal(t, 403, r.Status, string(r.Body))
		code, _ = errOf(t, r)
		assert.Equal(t, "live_mode_unavailable", code)

		var list struct {
			Data []map[string]any `json:"data"`
		}
		e.Do("GET", "/v1/merchants/settlement-payment-orders", nil).JSON(t, &list)
		assert.Empty(t, list.Data, "nothing stored")
		assert.EqualValues(t, 1000, e.bal(e.Account.ID, "KZT", ledger.Beneficiary(ben)), "nothing reserved")
		assert.Zero(t, e.drain(), "nothing queued")
		for q, param := range map[string]string{"status=pending": "status", "beneficiary_id=x": "beneficiary_id", "created_to=yesterday": "created_to"} {
			r := e.Do("GET", "/v1/merchants/settlement-payment-orders?"+q, nil)
			require.Equal(t, 400, r.Status, q)
			_, p := errOf(t, r)
			assert.Equal(t, param, p, q)
		}
	})
}

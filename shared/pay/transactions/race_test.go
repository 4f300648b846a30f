package transactions

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// TestConcurrentRefunds: 20 concurrent refunds of 10% each on one captured
// payment: exactly 10 succeed, the other 10 are a 400 naming amount, and the
// refunded total is exact (ten refund records, the parent refunded); on
// both stores.
func TestConcurrentRefunds(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		id := e.seed(seed{status: payments.Charged, amount: 10000})
		resps := burst(20, func(int) *apitest.Resp {
			return e.post("/v1/transactions/"+id+"/refund", map[string]any{"amount": 1000})
		})
		ok, bad := 0, 0
		var refunds []string
		for _, r := range resps {
			switch r.Status {
			case 200:
				ok++
				refunds = append(refunds, r.Map(t)["id"].(string))
			case 400:
				bad++
				_, param, _ := errParam(t, r)
				assert.Equal(t, "amount", param)
			default:
				t.Errorf("unexpected %d: %s", r.Status, r.Body)
			}
		}
		assert.Equal(t, 10, ok)
		assert.Equal(t, 10, bad)
		p := e.get(id)
		assert.Equal(t, "refunded", p["status"])
		assert.EqualValues(t, 10000, p["refunded_amount"])
		var total int64
		for _, rid := range refunds {
			rf := e.get(rid)
			assert.Equal(t, id, rf["parent_transaction_id"])
			total += int64(rf["amount"].(float64))
		}
		assert.EqualValues(t, 10000, total)
		assert.Len(t, e.refundsOf(id), 10, "one refund record per success, none for a failure")
		assert.Len(t, filter(e.events(id), "payment.partially_refunded"), 9)
		assert.Len(t, filter(e.events(id), "payment.refunded"), 1)
		// The processor heard of the ten committed refunds, each once, and
		// of nothing a losing attempt computed.
		got := e.proc.got()
		require.Len(t, got, 10)
		ids := map[string]bool{}
		var heard int64
		for _, m := range got {
			assert.Equal(t, "refund", m.Kind)
			ids[m.ID] = true
			heard += m.Amount
		}
		assert.Len(t, ids, 10)
		assert.EqualValues(t, 10000, heard)
		assert.Equal(t, 0, e.modificationEntries())
	})
}

// TestCapturesRaceCancel: 20 concurrent captures of 10% racing a cancel:
// either the cancel wins and nothing is captured, or the captures take the
// authorised amount exactly and the cancel is a 409; never both. Several
// rounds, the cancel sent at different points of the burst and the captures
// held back by 0 to 25 ms so both outcomes occur (the outcome counts are
// logged; the invariant is asserted in every round); both stores.
func TestCapturesRaceCancel(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		outcomes := map[string]int{}
		for round := 0; round < 6; round++ {
			id := e.seed(seed{amount: 10000})
			resps := burst(21, func(i int) *apitest.Resp {
				if i == round*4 {
					return e.post("/v1/transactions/"+id+"/cancel", nil)
				}
				time.Sleep(time.Duration(round*5) * time.Millisecond)
				return e.post("/v1/transactions/"+id+"/capture", map[string]any{"amount": 1000})
			})
			cancel := resps[round*4]
			captured := 0
			for i, r := range resps {
				if i == round*4 {
					continue
				}
				switch r.Status {
				case 200:
					captured++
				case 400, 409:
				default:
					t.Errorf("capture: unexpected %d: %s", r.Status, r.Body)
				}
			}
			p := e.get(id)
			switch cancel.Status {
			case 200:
				outcomes["cancel won"]++
				assert.Zero(t, captured, "the cancel won: nothing is captured")
				assert.Equal(t, "cancelled", p["status"])
				assert.EqualValues(t, 0, p["processed_amount"])
			case 409:
				outcomes["captures won"]++
				assert.Equal(t, 10, captured, "the captures take the authorised amount")
				assert.Equal(t, "charged", p["status"])
				assert.EqualValues(t, 10000, p["processed_amount"])
			default:
				t.Fatalf("cancel: unexpected %d: %s", cancel.Status, cancel.Body)
			}
			assert.Equal(t, 0, e.expiryEntries(), "the hold left the expiry index either way")
			// The processor heard exactly what committed: the cancel, or
			// the ten captures.
			var kinds []string
			for _, m := range e.proc.got() {
				if m.Payment == id {
					kinds = append(kinds, m.Kind)
				}
			}
			if cancel.Status == 200 {
				assert.Equal(t, []string{"cancel"}, kinds)
			} else {
				assert.Equal(t, slices.Repeat([]string{"capture"}, 10), kinds)
			}
		}
		assert.Equal(t, 0, e.modificationEntries())
		t.Logf("outcomes over the rounds: %v", outcomes)
	})
}

// burst sends n requests at once (released together) and returns the
// responses by index.
func burst(n int, send func(i int) *apitest.Resp) []*apitest.Resp {
	out := make([]*apitest.Resp, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			out[i] = send(i)
		})
	}
	close(start)
	wg.Wait()
	return out
}

// refundsOf lists the refund records whose parent is id.
func (e *env) refundsOf(id string) []*payments.Payment {
	e.T.Helper()
	page, err := e.Deps.Store.Query(context.Background(), store.Query{Table: store.TablePayments, PK: "pay#" + e.Account.ID, Limit: 1000})
	require.NoError(e.T, err)
	var out []*payments.Payment
	for _, it := range page.Items {
		p, err := payments.Decode(it)
		require.NoError(e.T, err)
		if p.ParentTransactionID == id {
			out = append(out, p)
		}
	}
	return out
}

// TestAuthorizationExpiry: an authorisation not captured within 7 days is
// voided by the expirer (cancelled, reason authorization_expired, one
// payment.cancelled event, its index entry gone); one not yet due, and a
// captured one, are left; a second run changes nothing. Both stores.
func TestAuthorizationExpiry(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		start := time.Now().UTC().Truncate(time.Second)
		e.Clock.Set(start)
		old := e.seed(seed{amount: 100})
		captured := e.seed(seed{amount: 100})
		require.Equal(t, 200, e.post("/v1/transactions/"+captured+"/capture", nil).Status)
		e.Clock.Set(start.Add(time.Hour))
		young := e.seed(seed{amount: 100})
		require.Equal(t, 2, e.expiryEntries())

		e.Clock.Set(start.Add(payments.AuthorizationTTL - time.Second))
		n, err := e.svc.Expire(context.Background())
		require.NoError(t, err)
		assert.Zero(t, n, "nothing is due a second early")

		e.Clock.Set(start.Add(payments.AuthorizationTTL + time.Minute))
		n, err = e.svc.Expire(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		p := e.get(old)
		assert.Equal(t, "cancelled", p["status"])
		assert.ElementsMatch(t, []string{"payment.authorised", "payment.cancelled"}, e.events(old))
		r := e.Do("GET", "/v1/transactions/"+old+"/history", nil)
		var hist struct {
			Data []HistoryEntry `json:"data"`
		}
		r.JSON(t, &hist)
		last := hist.Data[len(hist.Data)-1]
		assert.Equal(t, payments.ReasonAuthorizationExpired, last.Reason)
		assert.Empty(t, last.RequestID, "no API request made the change")
		assert.Equal(t, "authorized", e.get(young)["status"])
		assert.Equal(t, "charged", e.get(captured)["status"])
		assert.Equal(t, 1, e.expiryEntries(), "only the young authorisation is left")
		r = e.post("/v1/transactions/"+old+"/capture", nil)
		assert.Equal(t, 409, r.Status, "an expired authorisation cannot be captured")

		n, err = e.svc.Expire(context.Background())
		require.NoError(t, err)
		assert.Zero(t, n)
		assert.Len(t, filter(e.events(old), "payment.cancelled"), 1)
	})
}

// TestConcurrentDuplicatesReplay: 20 copies of one refund sent at once with
// one Idempotency-Key make one refund, and every copy answers it (200 with
// the same body): a copy that loses the race to its twin replays the
// twin's answer instead of failing against the state the twin left (a 400
// "nothing left to refund"); on both stores.
func TestConcurrentDuplicatesReplay(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		id := e.seed(seed{status: payments.Charged, amount: 10000})
		key := e.key()
		resps := burst(20, func(int) *apitest.Resp {
			return e.Do("POST", "/v1/transactions/"+id+"/refund", map[string]any{"amount": 10000}, "Idempotency-Key", key)
		})
		for _, r := range resps {
			require.Equal(t, 200, r.Status, string(r.Body))
			assert.JSONEq(t, string(resps[0].Body), string(r.Body))
		}
		assert.Len(t, e.refundsOf(id), 1)
		assert.EqualValues(t, 10000, e.get(id)["refunded_amount"])
	})
}

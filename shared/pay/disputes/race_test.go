package disputes

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/sandbox/issuer"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// TestAcceptRacesSubmit: accepts and submits of one dispute sent at once
// (each its own key, and copies of one accept under one key) resolve to one
// outcome: either the accept won (lost; every copy of it answers the same
// 200, every submit a 409) or a submit won (under_review; the other
// submits and the accepts a 409); one event for the winner; the books
// balance; several rounds; on both stores.
func TestAcceptRacesSubmit(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		outcomes := map[string]int{}
		for round := 0; round < 6; round++ {
			id := e.open(e.payment("", 10000, 10000), nil)["id"].(string)
			require.Equal(t, 200, e.post("/v1/disputes/"+id+"/evidence", map[string]any{"description": "proof"}).Status)
			acceptKey := e.key()
			resps := burst(12, func(i int) *apitest.Resp {
				if i%2 == round%2 {
					return e.Do("POST", "/v1/disputes/"+id+"/accept", nil, "Idempotency-Key", acceptKey)
				}
				return e.post("/v1/disputes/"+id+"/submit", nil)
			})
			final := e.get(id)["status"].(string)
			outcomes[final]++
			accepted, submitted, conflicts := 0, 0, 0
			for i, r := range resps {
				isAccept := i%2 == round%2
				switch {
				case r.Status == 200 && isAccept:
					accepted++
					assert.Equal(t, "lost", r.Map(t)["status"])
				case r.Status == 200:
					submitted++
					assert.Equal(t, "under_review", r.Map(t)["status"])
				case r.Status == 409:
					conflicts++
				default:
					t.Errorf("unexpected %d: %s", r.Status, r.Body)
				}
			}
			switch final {
			case "lost":
				assert.Equal(t, 6, accepted, "every copy of the winning accept answers it")
				assert.Zero(t, submitted)
				assert.Equal(t, []string{EventCreated, EventUpdated, EventClosed}, e.events(id))
			case "under_review":
				assert.Zero(t, accepted)
				assert.Equal(t, 1, submitted)
				assert.Equal(t, []string{EventCreated, EventUpdated, EventUpdated}, e.events(id))
			default:
				t.Fatalf("status %s", final)
			}
			assert.Equal(t, 12-accepted-submitted, conflicts)
			e.checkBooks(e.Account.ID)
		}
		t.Logf("outcomes: %v", outcomes)
	})
}

// TestConcurrentEvidenceStaysWithin5MB: ten evidence calls of 700,000
// bytes each at once: exactly seven fit in 5 MiB, the other three are 413;
// the dispute names exactly the stored documents and no chunk is left
// without one; on both stores.
func TestConcurrentEvidenceStaysWithin5MB(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		id := e.open(e.payment("", 10000, 10000), nil)["id"].(string)
		resps := burst(10, func(i int) *apitest.Resp {
			return e.post("/v1/disputes/"+id+"/evidence", map[string]any{"documents": []any{
				doc("part.pdf", "application/pdf", sized(700000, byte('a'+i)))}})
		})
		ok, big := 0, 0
		for _, r := range resps {
			switch r.Status {
			case 200:
				ok++
			case 413:
				big++
			default:
				t.Errorf("unexpected %d: %s", r.Status, r.Body)
			}
		}
		assert.Equal(t, 7, ok)
		assert.Equal(t, 3, big)
		ev := e.get(id)["evidence"].(map[string]any)
		assert.Len(t, ev["documents"], 7)
		assert.EqualValues(t, 7*700000, num(ev["size"]))
		assert.Equal(t, 7*2, e.chunks(e.Account.ID, id), "two chunks per document, none orphaned")
	})
}

// TestDuplicateEvidenceCallsStoreOnce: copies of one evidence call (one
// key) sent at once store its documents once and all answer the same; on
// both stores.
func TestDuplicateEvidenceCallsStoreOnce(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		id := e.open(e.payment("", 10000, 10000), nil)["id"].(string)
		key := e.key()
		body := map[string]any{"description": "twice", "documents": []any{doc("a.pdf", "application/pdf", sized(400000, 'z'))}}
		resps := burst(8, func(int) *apitest.Resp {
			return e.Do("POST", "/v1/disputes/"+id+"/evidence", body, "Idempotency-Key", key)
		})
		for _, r := range resps {
			require.Equal(t, 200, r.Status, "%s", r.Body)
			assert.JSONEq(t, string(resps[0].Body), string(r.Body))
		}
		ev := e.get(id)["evidence"].(map[string]any)
		assert.Len(t, ev["documents"], 1)
		assert.Equal(t, 2, e.chunks(e.Account.ID, id))
		assert.Equal(t, []string{EventCreated, EventUpdated}, e.events(id))
	})
}

// TestConcurrentOpensMakeOneDispute: opens of one payment at once (each
// its own key) make exactly one dispute and one hold; the others are 409
// dispute_exists; on both stores.
func TestConcurrentOpensMakeOneDispute(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		tx := e.payment("", 10000, 10000)
		resps := burst(10, func(int) *apitest.Resp {
			return e.post("/test-helpers/transactions/"+tx+"/dispute", nil)
		})
		created := 0
		for _, r := range resps {
			switch r.Status {
			case 201:
				created++
			case 409:
				code, _ := errOf(t, r)
				assert.Equal(t, "dispute_exists", code)
			default:
				t.Errorf("unexpected %d: %s", r.Status, r.Body)
			}
		}
		assert.Equal(t, 1, created)
		assert.Equal(t, map[string]int64{"available": 0, "pending": 0, "reserved": 0, "disputed": 11500, "owed": -1500}, e.bal())
		r := e.Do("GET", "/v1/disputes", nil)
		assert.Len(t, r.Map(t)["data"], 1)
		e.checkBooks(e.Account.ID)
	})
}

// TestSweepersRaceCloseOnce: sweepers running at once close each due
// dispute once (one dispute.closed each, one loss entry); on both stores.
func TestSweepersRaceCloseOnce(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		var disputes []string
		for i := 0; i < 4; i++ {
			disputes = append(disputes, e.open(e.payment("", 1000, 1000), nil)["id"].(string))
		}
		e.Clock.Advance(DefaultResponseWindow)
		var wg sync.WaitGroup
		var mu sync.Mutex
		total := 0
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n, _ := e.svc.Sweep(context.Background())
				mu.Lock()
				total += n
				mu.Unlock()
			}()
		}
		wg.Wait()
		assert.Equal(t, 4, total, "each closed once")
		for _, id := range disputes {
			assert.Equal(t, []string{EventCreated, EventClosed}, e.events(id))
		}
		e.checkBooks(e.Account.ID)
	})
}

// TestSweeperRacesSubmit: submits of a dispute racing sweepers while the
// clock crosses its due_by, in rounds (the crossing lands at a different
// point each time): either a submit read it before due_by and won
// (under_review; every other submit a 409 dispute_state_conflict, never
// "expired" about a dispute under review; no sweeper closed it), or it
// expired (lost, closed_reason expired, by a sweeper or by a submit's own
// expiry; no submit answered 200, each a 409 dispute_expired or
// dispute_closed). One dispute.closed at most, the hold still held or
// lost once; once the review ends the sweeper applies the issuer's
// decision once; the books balance; on both stores.
func TestSweeperRacesSubmit(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		outcomes := map[string]int{}
		for round := 0; round < 8; round++ {
			due := e.Clock.Now().Add(time.Hour).Truncate(time.Second)
			id := e.open(e.payment("", 10000, 10000), map[string]any{"due_by": due.Format(time.RFC3339)})["id"].(string)
			began := time.Now()
			require.Equal(t, 200, e.post("/v1/disputes/"+id+"/evidence", map[string]any{"description": "proof"}).Status)
			call := time.Since(began) // about one submit's time on this store
			e.Clock.Set(due.Add(-time.Millisecond))
			var swept atomic.Int64
			resps := burst(10, func(i int) *apitest.Resp {
				switch {
				case i == 0: // the deadline passes somewhere in the burst
					time.Sleep(time.Duration(rand.Int64N(int64(call)*int64(round+1)/2 + 1)))
					e.Clock.Advance(time.Millisecond)
				case i%3 == 0: // sweepers, before and after the crossing
					for k := 0; k < 3; k++ {
						n, err := e.svc.Sweep(context.Background())
						assert.NoError(t, err)
						swept.Add(int64(n))
						time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
					}
				default:
					return e.post("/v1/disputes/"+id+"/submit", nil)
				}
				return nil
			})
			if e.Clock.Now().Before(due) {
				e.Clock.Set(due) // the crossing goroutine always advances; belt and braces
			}
			d := e.get(id)
			final := d["status"].(string)
			outcomes[final]++
			submitted := 0
			for _, r := range resps {
				if r == nil {
					continue
				}
				if r.Status == 200 {
					submitted++
					continue
				}
				require.Equal(t, 409, r.Status, "%s", r.Body)
				code, _ := errOf(t, r)
				if final == "under_review" {
					assert.Equal(t, "dispute_state_conflict", code, "a submit that lost to a submit: %s", r.Body)
				} else {
					assert.Contains(t, []string{"dispute_expired", "dispute_closed"}, code, "%s", r.Body)
				}
			}
			switch final {
			case "under_review":
				assert.Equal(t, 1, submitted)
				assert.Zero(t, swept.Load(), "no sweeper closed a dispute submitted in time")
				assert.Equal(t, []string{EventCreated, EventUpdated, EventUpdated}, e.events(id))
				e.Clock.Advance(issuer.Review)
				assert.Equal(t, 1, e.sweep(), "the review ended: decided once")
				d = e.get(id)
				assert.Equal(t, "lost", d["status"], "no winning evidence")
				assert.Equal(t, "reviewed", d["closed_reason"])
				assert.Equal(t, []string{EventCreated, EventUpdated, EventUpdated, EventClosed}, e.events(id))
			case "lost":
				assert.Zero(t, submitted)
				assert.Equal(t, "expired", d["closed_reason"])
				assert.LessOrEqual(t, swept.Load(), int64(1))
				assert.Equal(t, []string{EventCreated, EventUpdated, EventClosed}, e.events(id))
			default:
				t.Fatalf("status %s", final)
			}
			assert.Zero(t, e.sweep(), "nothing left due")
			assert.Zero(t, e.bal()["disputed"], "every hold released or lost, once")
			e.checkBooks(e.Account.ID)
		}
		t.Logf("outcomes: %v", outcomes)
	})
}

// TestRefundRacesOpen: refunds of a captured payment racing the sandbox's
// opens of a dispute on it, ordered by the payment's version: refunds
// committed before the dispute are left out of its amount (it claims what
// is left), every refund after it is a 409 payment_disputed, one dispute,
// and refunded + disputed is exactly what was captured; a full refund
// racing opens ends refunded (every open a 409 payment_refunded) or
// disputed for the whole (the refund a 409 payment_disputed); the money
// moved matches, the books balance; several rounds; on both stores.
func TestRefundRacesOpen(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		const fee = DefaultFee * 100
		for round := 0; round < 4; round++ {
			tx := e.payment("", 10000, 10000)
			before := e.bal()
			resps := burst(8, func(i int) *apitest.Resp {
				if i%2 == round%2 {
					return e.post("/v1/transactions/"+tx+"/refund", map[string]any{"amount": 2000})
				}
				return e.post("/test-helpers/transactions/"+tx+"/dispute", nil)
			})
			refunds, opened := 0, ""
			for i, r := range resps {
				code := ""
				if r.Status >= 400 {
					code, _ = errOf(t, r)
				}
				switch {
				case i%2 == round%2 && r.Status == 200:
					refunds++
				case i%2 == round%2:
					assert.Equal(t, "payment_disputed", code, "%d %s", r.Status, r.Body)
				case r.Status == 201:
					require.Empty(t, opened, "one dispute")
					opened = r.Map(t)["id"].(string)
				default:
					assert.Equal(t, "dispute_exists", code, "%d %s", r.Status, r.Body)
				}
			}
			require.NotEmpty(t, opened)
			p := e.tx(tx)
			d := e.get(opened)
			disputed := num(d["amount"].(map[string]any)["value"])
			assert.EqualValues(t, 2000*refunds, num(p["refunded_amount"]))
			assert.EqualValues(t, 10000, num(p["refunded_amount"])+disputed, "the dispute claims exactly what was not refunded")
			after := e.bal()
			assert.Equal(t, before["disputed"]+disputed+fee, after["disputed"])
			assert.Equal(t, before["available"]+before["owed"]-int64(2000*refunds)-disputed-fee, after["available"]+after["owed"])
			e.checkBooks(e.Account.ID)

			// A full refund racing opens.
			full := e.payment("", 5000, 5000)
			resps = burst(6, func(i int) *apitest.Resp {
				if i == round%6 {
					return e.post("/v1/transactions/"+full+"/refund", nil)
				}
				return e.post("/test-helpers/transactions/"+full+"/dispute", nil)
			})
			refund := resps[round%6]
			created := 0
			for i, r := range resps {
				if i == round%6 || r.Status == 201 {
					if r.Status == 201 {
						created++
					}
					continue
				}
				require.Equal(t, 409, r.Status, "%s", r.Body)
				code, _ := errOf(t, r)
				if refund.Status == 200 {
					assert.Equal(t, "payment_refunded", code)
				} else {
					assert.Equal(t, "dispute_exists", code)
				}
			}
			if refund.Status == 200 {
				assert.Zero(t, created)
				assert.Equal(t, "refunded", e.tx(full)["status"])
			} else {
				require.Equal(t, 409, refund.Status, "%s", refund.Body)
				code, _ := errOf(t, refund)
				assert.Equal(t, "payment_disputed", code)
				assert.Equal(t, 1, created)
				assert.EqualValues(t, 0, num(e.tx(full)["refunded_amount"]))
			}
			e.checkBooks(e.Account.ID)
		}
	})
}

// TestEvidenceRacesAccept: evidence calls with documents racing an accept:
// the accept wins whenever it commits (lost), the evidence calls after it
// are a 409 dispute_closed; the dispute names exactly the documents of the
// calls answered 200 and no chunk is stored that it does not name (a call
// refused by the accept removes what it wrote); on both stores.
func TestEvidenceRacesAccept(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		for round := 0; round < 3; round++ {
			id := e.open(e.payment("", 10000, 10000), nil)["id"].(string)
			at := 1 + round*2
			resps := burst(7, func(i int) *apitest.Resp {
				if i == at {
					return e.post("/v1/disputes/"+id+"/accept", nil)
				}
				return e.post("/v1/disputes/"+id+"/evidence", map[string]any{"documents": []any{
					doc("part.pdf", "application/pdf", sized(ChunkSize+10, byte('a'+i)))}})
			})
			require.Equal(t, 200, resps[at].Status, "%s", resps[at].Body)
			ok := 0
			for i, r := range resps {
				if i == at {
					continue
				}
				if r.Status == 200 {
					ok++
					continue
				}
				require.Equal(t, 409, r.Status, "%s", r.Body)
				code, _ := errOf(t, r)
				assert.Equal(t, "dispute_closed", code)
			}
			d := e.get(id)
			assert.Equal(t, "lost", d["status"])
			assert.Len(t, d["evidence"].(map[string]any)["documents"], ok)
			assert.Equal(t, 2*ok, e.chunks(e.Account.ID, id), "two chunks per named document, none orphaned")
			e.checkBooks(e.Account.ID)
		}
	})
}

// TestConcurrentHoldsOweExactly: disputes opened at once on eight payments
// of one account, holding more than is available, racing a refund of
// another payment (held to the non-negative available balance): available
// ends at exactly zero and never below, the rest is owed to the unit
// (available + owed is what was there less every hold and the refund, if
// it was taken), the sweeper's recovery finds nothing to move; on both
// stores.
func TestConcurrentHoldsOweExactly(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		const fee = DefaultFee * 100
		var txs []string
		for i := 0; i < 8; i++ {
			txs = append(txs, e.payment("", 1000, 1000))
		}
		other := e.payment("", 5000, 5000)
		before := e.bal()
		require.EqualValues(t, 13000, before["available"])
		resps := burst(9, func(i int) *apitest.Resp {
			if i == 8 {
				return e.post("/v1/transactions/"+other+"/refund", nil)
			}
			return e.post("/test-helpers/transactions/"+txs[i]+"/dispute", nil)
		})
		for _, r := range resps[:8] {
			require.Equal(t, 201, r.Status, "a dispute is never refused for lack of funds: %s", r.Body)
		}
		refunded := int64(0)
		if resps[8].Status == 200 {
			refunded = 5000
		} else {
			require.Equal(t, 400, resps[8].Status, "%s", resps[8].Body)
			code, _ := errOf(t, resps[8])
			assert.Equal(t, "insufficient_balance", code)
		}
		held := int64(8 * (1000 + fee))
		after := e.bal()
		assert.Equal(t, held, after["disputed"])
		assert.Equal(t, before["available"]-held-refunded, after["available"]+after["owed"])
		assert.GreaterOrEqual(t, after["available"], int64(0))
		assert.LessOrEqual(t, after["owed"], int64(0))
		assert.True(t, after["available"] == 0 || after["owed"] == 0, "nothing owed while something is available: %v", after)
		e.checkBooks(e.Account.ID)
		n, err := ledger.Recover(context.Background(), e.Deps.Store, e.Clock.Now())
		require.NoError(t, err)
		assert.Zero(t, n)
		t.Logf("refund taken: %v; balance %v", refunded > 0, after)
	})
}

// TestOneKeyOtherEvidenceKeepsTheWinnersBytes: evidence calls sent at once
// under one Idempotency-Key with different documents (a client reusing a
// key): one is stored, the others are a 422; the dispute's document reads
// back as exactly the winner's bytes (a loser never overwrites the chunks
// the winner names), no loser's chunk is left, and the evidence can be
// submitted; on both stores.
func TestOneKeyOtherEvidenceKeepsTheWinnersBytes(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		for round := 0; round < 3; round++ {
			id := e.open(e.payment("", 10000, 10000), nil)["id"].(string)
			key := e.key()
			sent := make([][]byte, 6)
			for i := range sent {
				sent[i] = sized(ChunkSize+1000, byte('a'+i))
			}
			resps := burst(len(sent), func(i int) *apitest.Resp {
				return e.Do("POST", "/v1/disputes/"+id+"/evidence", map[string]any{"documents": []any{
					doc("proof.pdf", "application/pdf", sent[i])}}, "Idempotency-Key", key)
			})
			won := -1
			for i, r := range resps {
				if r.Status == 200 {
					require.Equal(t, -1, won, "one call stored: %s", r.Body)
					won = i
					continue
				}
				require.Equal(t, 422, r.Status, "%s", r.Body)
			}
			require.NotEqual(t, -1, won)
			docs := e.get(id)["evidence"].(map[string]any)["documents"].([]any)
			require.Len(t, docs, 1)
			_, data, err := e.svc.Document(context.Background(), e.Account.ID, id, docs[0].(map[string]any)["id"].(string))
			require.NoError(t, err)
			assert.Equal(t, sent[won], data, "the winner's bytes")
			assert.Equal(t, 2, e.chunks(e.Account.ID, id), "no loser's chunk left")
			require.Equal(t, 200, e.post("/v1/disputes/"+id+"/submit", nil).Status)
		}
	})
}

package disputes

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/apitest"
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

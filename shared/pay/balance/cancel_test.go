package balance

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
	"github.com/paygate/paygate/shared/testkit/ledgertest"
)

// cancel posts the payout's cancel under key.
func (e *env) cancel(id, key string) *apitest.Resp {
	e.T.Helper()
	return e.Do("POST", "/v1/payouts/"+id+"/cancel", nil, "Idempotency-Key", key)
}

// TestCancelPendingPayout: a pending payout is cancelled: its reservation is
// available again (payout, payout_cancelled entries), payout.cancelled is
// written, the same key replays, another key is a 409 naming the status,
// and the consumer never asks the processor about it; on both stores.
func TestCancelPendingPayout(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		e.fund(5000, "EUR")
		id := e.payout(e.card(cardPaid), 2000)
		assert.Equal(t, int64(2000), e.balances()["EUR"].Reserved)

		key := e.key()
		r := e.cancel(id, key)
		require.Equal(t, 200, r.Status, string(r.Body))
		p := r.Map(t)
		assert.Equal(t, "cancelled", p["status"])
		assert.NotEmpty(t, p["cancelled_at"])
		bal := e.balances()["EUR"]
		assert.Equal(t, int64(5000), bal.Available, "the reservation is available again")
		assert.Equal(t, int64(0), bal.Reserved)
		assert.Equal(t, []ledger.EntryType{ledger.EntryPayout, ledger.EntryPayoutCancelled}, e.entriesOf(ledger.Source{Type: ledger.SourcePayout, ID: id}))

		again := e.cancel(id, key)
		require.Equal(t, 200, again.Status, string(again.Body))
		assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
		assert.JSONEq(t, string(r.Body), string(again.Body))

		r = e.cancel(id, e.key())
		require.Equal(t, 409, r.Status, string(r.Body))
		code, _ := errOf(t, r)
		assert.Equal(t, "payout_not_pending", code)
		assert.Contains(t, r.Err(t)["message"], "cancelled")

		assert.Equal(t, 1, e.drainAtLeast(1), "the message is consumed")
		assert.Zero(t, e.proc.Calls.Load(), "the processor is never asked about a cancelled payout")
		_, found, err := e.proc.Lookup(context.Background(), id)
		require.NoError(t, err)
		assert.False(t, found)
		assert.Equal(t, "cancelled", e.getPayout(id)["status"])

		types := e.eventTypes(id)
		assert.Equal(t, []string{EventPayoutCreated, EventPayoutCancelled}, types)
		assert.Equal(t, int64(5000), e.balances()["EUR"].Available)
		e.check()
	})
}

// eventTypes are the types of the events about payout id, oldest first
// (the newest 100 of the account).
func (e *env) eventTypes(id string) []string {
	e.T.Helper()
	page, err := e.Deps.Store.Query(context.Background(), eventlog.Newest(e.Account.ID, ""))
	require.NoError(e.T, err)
	var out []string
	for i := len(page.Items) - 1; i >= 0; i-- {
		ev, err := eventlog.Decode(page.Items[i])
		require.NoError(e.T, err)
		var data struct {
			ID string `json:"id"`
		}
		require.NoError(e.T, json.Unmarshal(ev.Data, &data))
		if data.ID == id {
			out = append(out, ev.Type)
		}
	}
	return out
}

// TestCancelAfterSendIs409: a payout the consumer sent (in_transit, the
// processor not answering) or that the processor paid or refused is a 409
// payout_not_pending whose message names its status; nothing moves.
func TestCancelAfterSendIs409(t *testing.T) {
	e := newEnv(t, backend{"embedded", embeddedStore, embeddedQueue}, options{})
	e.fund(10000, "EUR")
	for _, c := range []struct{ number, status string }{
		{cardTimeout, "in_transit"}, {cardPaid, "paid"}, {cardDeclined, "failed"},
	} {
		id := e.payout(e.card(c.number), 1000)
		_, err := e.svc.Process(context.Background(), e.Account.ID, id)
		require.NoError(t, err)
		before := e.balances()["EUR"]
		r := e.cancel(id, e.key())
		require.Equal(t, 409, r.Status, "%s: %s", c.status, r.Body)
		code, _ := errOf(t, r)
		assert.Equal(t, "payout_not_pending", code)
		assert.Contains(t, r.Err(t)["message"], c.status)
		assert.Equal(t, c.status, e.getPayout(id)["status"])
		assert.Equal(t, before, e.balances()["EUR"], "%s: nothing moved", c.status)
	}
	e.check()
}

// TestCancelOtherAccountAndBadInput: another account's payout and a missing
// one are 404 (nothing moves); a bad id is a 400 naming id; the key is
// required; a body with a field is a 400 naming it.
func TestCancelOtherAccountAndBadInput(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		e.fund(1000, "EUR")
		id := e.payout(e.card(cardPaid), 400)
		_, other := e.NewAccount(accounts.Test)
		for _, pid := range []string{id, ids.New()} {
			r := e.DoKey(other, "POST", "/v1/payouts/"+pid+"/cancel", nil, "Idempotency-Key", e.key())
			assert.Equal(t, 404, r.Status, string(r.Body))
		}
		assert.Equal(t, "pending", e.getPayout(id)["status"], "still the owner's, untouched")
		assert.Equal(t, int64(400), e.balances()["EUR"].Reserved)

		r := e.cancel("not-a-uuid", e.key())
		require.Equal(t, 400, r.Status, string(r.Body))
		_, param := errOf(t, r)
		assert.Equal(t, "id", param)
		r = e.Do("POST", "/v1/payouts/"+id+"/cancel", nil)
		require.Equal(t, 400, r.Status, "no Idempotency-Key: %s", r.Body)
		r = e.Do("POST", "/v1/payouts/"+id+"/cancel", map[string]any{"reason": "x"}, "Idempotency-Key", e.key())
		require.Equal(t, 400, r.Status, string(r.Body))
		_, param = errOf(t, r)
		assert.Equal(t, "reason", param)
		assert.Equal(t, "pending", e.getPayout(id)["status"])
	})
}

// TestCancelRacesTheConsumer: for each of 20 payouts, the consumer's step
// and 6 cancels (under their own keys) all read the pending payout before
// any of them writes (a barrier in the store's reads), then race to write:
// exactly one of cancelled and sent wins. A cancelled payout was never
// asked of the processor and got its reservation back once; a sent one
// was paid and all its cancels are 409; the money is never doubled nor
// lost (available + paid out = funded), and the ledger check finds no
// difference; on both stores.
func TestCancelRacesTheConsumer(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		const n, cancels, each, funded = 20, 6, 100, 10000
		bar := &readBarrier{parties: 1 + cancels, gates: map[string]chan struct{}{}, count: map[string]int{}}
		e := newEnv(t, b, options{store: func(st store.Store) store.Store { bar.Store = st; return bar }})
		e.fund(funded, "EUR")
		card := e.card(cardPaid)
		idsOf := make([]string, n)
		for i := range idsOf {
			idsOf[i] = e.payout(card, each)
			bar.arm(idsOf[i])
		}
		results := make([]struct{ ok, conflict int }, n)
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i, id := range idsOf {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := e.svc.Process(context.Background(), e.Account.ID, id)
				assert.NoError(t, err)
			}()
			for j := 0; j < cancels; j++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := e.cancel(id, fmt.Sprintf("race-%d-%d", i, j))
					mu.Lock()
					defer mu.Unlock()
					switch r.Status {
					case 200:
						results[i].ok++
					case 409:
						code, _ := errOf(t, r)
						assert.Equal(t, "payout_not_pending", code)
						results[i].conflict++
					default:
						t.Errorf("cancel %s: %d %s", id, r.Status, r.Body)
					}
				}()
			}
		}
		wg.Wait()
		assert.Zero(t, bar.timeouts.Load(), "every party read the pending payout before any wrote")
		e.drain() // the queued messages: each payout is decided already

		cancelled, paid := 0, 0
		for i, id := range idsOf {
			p := e.getPayout(id)
			_, asked, err := e.proc.Lookup(context.Background(), id)
			require.NoError(t, err)
			src := ledger.Source{Type: ledger.SourcePayout, ID: id}
			switch p["status"] {
			case "cancelled":
				cancelled++
				assert.Equal(t, 1, results[i].ok, "%s: one cancel won", id)
				assert.False(t, asked, "%s: cancelled, so never sent to the processor", id)
				assert.Equal(t, []ledger.EntryType{ledger.EntryPayout, ledger.EntryPayoutCancelled}, e.entriesOf(src))
			case "paid":
				paid++
				assert.Zero(t, results[i].ok, "%s: paid, so no cancel won", id)
				assert.True(t, asked)
				assert.Equal(t, []ledger.EntryType{ledger.EntryPayout, ledger.EntryPayoutPaid}, e.entriesOf(src))
			default:
				t.Errorf("%s: status %v", id, p["status"])
			}
			assert.Equal(t, cancels, results[i].ok+results[i].conflict)
		}
		t.Logf("cancelled %d, paid %d", cancelled, paid)
		assert.Equal(t, n, cancelled+paid)
		bal := e.balances()["EUR"]
		paidOut, err := ledgertest.ExternalTotal(context.Background(), e.Deps.Store, e.Account.ID, "EUR", ledger.PaidOut)
		require.NoError(t, err)
		assert.Equal(t, int64(paid*each), paidOut, "paid out exactly the paid payouts")
		assert.Equal(t, int64(funded), bal.Available+paidOut, "nothing doubled, nothing lost")
		assert.Zero(t, bal.Reserved)
		e.check()
	})
}

// readBarrier holds the first reads of each armed payout until parties of
// them are waiting (or 5 s passed), then lets them all go at once: every
// party has read the same version before any can write. Later reads pass.
type readBarrier struct {
	store.Store
	parties  int
	mu       sync.Mutex
	gates    map[string]chan struct{}
	count    map[string]int
	timeouts atomic.Int64
}

func (b *readBarrier) arm(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.gates[id] = make(chan struct{})
}

func (b *readBarrier) Get(ctx context.Context, k store.Key) (store.Item, error) {
	it, err := b.Store.Get(ctx, k)
	if !strings.HasPrefix(k.PK, "pout#") {
		return it, err
	}
	b.mu.Lock()
	gate, ok := b.gates[k.SK]
	if ok && b.count[k.SK] < b.parties {
		b.count[k.SK]++
		if b.count[k.SK] == b.parties {
			close(gate)
		}
	} else {
		ok = false
	}
	b.mu.Unlock()
	if ok {
		select {
		case <-gate:
		case <-time.After(5 * time.Second):
			b.timeouts.Add(1)
		}
	}
	return it, err
}

package beneficiaries

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/ledgertest"
)

// many registers n beneficiaries through the service (faster than n
// requests) and returns their ids.
func (e *env) many(n int) []string {
	e.T.Helper()
	out := make([]string, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range out {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			body := personBody(ibanPaid)
			req := CreateRequest{}
			name, typ, iin, iban, bic, kbe := fmt.Sprintf("Courier %d", i), "person", body["iin"].(string), ibanPaid, bicKaspi, "19"
			req.Name, req.Type, req.IIN, req.IBAN, req.BIC, req.KBe = &name, &typ, &iin, &iban, &bic, &kbe
			b, err := e.svc.Create(context.Background(), CreateInput{AccountID: e.Account.ID, Request: req})
			if err == nil {
				out[i] = b.ID
			}
		}()
	}
	wg.Wait()
	for _, id := range out {
		require.NotEmpty(e.T, id)
	}
	return out
}

// lines builds n lines of amount i+1 to ids[i].
func lines(ids []string, currency string) ([]any, int64) {
	var out []any
	var total int64
	for i, id := range ids {
		out = append(out, map[string]any{"beneficiary_id": id, "amount": map[string]any{"value": i + 1, "currency": currency}})
		total += int64(i + 1)
	}
	return out, total
}

// TestDistributionOfFewLines: a distribution that fits one transaction
// takes its total from available and credits every line in that one
// write: completed, one entry, distribution.completed; it is read with its
// lines, listed without them, and the distribution balance shows what the
// beneficiaries hold; a replay moves nothing; on both stores.
func TestDistributionOfFewLines(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		acct := e.Account.ID
		bens := e.many(3)
		e.fund(acct, 10000, "KZT")
		ls, _ := lines(bens, "KZT")
		ls[2].(map[string]any)["amount"].(map[string]any)["value"] = 5000
		key := e.key()
		body := map[string]any{"reference": "may-2024", "lines": ls, "metadata": map[string]any{"run": "7"}}
		r := e.Do("POST", "/v1/distributions", body, "Idempotency-Key", key)
		require.Equal(t, 201, r.Status, string(r.Body))
		d := r.Map(t)
		id := d["id"].(string)
		assert.Equal(t, "completed", d["status"])
		assert.EqualValues(t, 3, d["line_count"])
		assert.EqualValues(t, 3, d["credited_lines"])
		assert.Equal(t, map[string]any{"value": 5003.0, "currency": "KZT"}, d["amount"])
		assert.Len(t, d["lines"], 3)
		r = e.Do("POST", "/v1/distributions", body, "Idempotency-Key", key)
		require.Equal(t, 201, r.Status)
		assert.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))

		assert.EqualValues(t, 4997, e.bal(acct, "KZT", ledger.Available))
		assert.EqualValues(t, 1, e.bal(acct, "KZT", ledger.Beneficiary(bens[0])))
		assert.EqualValues(t, 5000, e.bal(acct, "KZT", ledger.Beneficiary(bens[2])))
		assert.Equal(t, []ledger.EntryType{ledger.EntryDistribution}, e.entriesOf(ledger.Source{Type: ledger.SourceDistribution, ID: id}))
		assert.Equal(t, 1, count(eventTypes(t, e), EventDistributionCompleted))

		got := e.Do("GET", "/v1/distributions/"+id, nil).Map(t)
		assert.Equal(t, d["lines"], got["lines"])
		var list struct {
			Data []map[string]any `json:"data"`
		}
		e.Do("GET", "/v1/distributions?status=completed", nil).JSON(t, &list)
		require.Len(t, list.Data, 1)
		assert.NotContains(t, list.Data[0], "lines")

		var bal struct {
			Data []map[string]any `json:"data"`
		}
		e.Do("GET", "/v1/distributions/balance", nil).JSON(t, &bal)
		require.Len(t, bal.Data, 1)
		row := bal.Data[0]
		assert.Equal(t, "KZT", row["currency"])
		assert.EqualValues(t, 4997, row["available"])
		assert.EqualValues(t, 0, row["distributing"])
		assert.Equal(t, map[string]any{"available": 5003.0, "reserved": 0.0}, row["beneficiaries"])
		e.check(acct)
	})
}

// TestDistributionOf500LinesInChunks: 500 lines, more than one transaction
// holds: the answer is processing with the first 85 credited and the rest
// in distributing; the later chunks follow in the request, so a read finds
// it completed; every beneficiary is credited exactly its line once, the
// books balance and distributing is back to zero; on both stores.
func TestDistributionOf500LinesInChunks(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		acct := e.Account.ID
		bens := e.many(MaxLines)
		ls, total := lines(bens, "KZT")
		e.fund(acct, total+1, "KZT")
		r := e.post("/v1/distributions", map[string]any{"reference": "big", "lines": ls})
		require.Equal(t, 201, r.Status, string(r.Body))
		d := r.Map(t)
		id := d["id"].(string)
		assert.Equal(t, "processing", d["status"], "answered as committed: the head of the distribution")
		assert.EqualValues(t, ChunkLines, d["credited_lines"])
		got := e.Do("GET", "/v1/distributions/"+id, nil).Map(t)
		assert.Equal(t, "completed", got["status"])
		assert.EqualValues(t, MaxLines, got["credited_lines"])
		assert.NotEmpty(t, got["completed_at"])
		for i, ben := range bens {
			assert.EqualValues(t, i+1, e.bal(acct, "KZT", ledger.Beneficiary(ben)), "line %d", i)
		}
		assert.EqualValues(t, 1, e.bal(acct, "KZT", ledger.Available))
		assert.EqualValues(t, 0, e.bal(acct, "KZT", ledger.Distributing))
		assert.EqualValues(t, total, e.bal(acct, "KZT", ledger.BeneficiariesHeld))
		types := e.entriesOf(ledger.Source{Type: ledger.SourceDistribution, ID: id})
		require.Len(t, types, 6, "the head and five more chunks of 85 (500 = 6 x 85 - 10)")
		assert.Equal(t, 1, countEntries(types, ledger.EntryDistribution))
		assert.Equal(t, 5, countEntries(types, ledger.EntryDistributionCredit))
		assert.Equal(t, 1, count(eventTypes(t, e), EventDistributionCompleted))
		res, err := e.svc.Sweep(context.Background())
		require.NoError(t, err)
		assert.Zero(t, res.Resumed, "nothing left open")
		e.check(acct)
	})
}

// TestDistributionCrashBetweenChunks: the process dies after two chunks
// (the third chunk's write never happens): the answer is the committed
// head, the distribution stays processing with the money in distributing;
// the settlement task's sweeps (four at once) finish it: every line is
// credited exactly once; on both stores.
func TestDistributionCrashBetweenChunks(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		var chunkWrites atomic.Int64
		crash := func(st store.Store) store.Store {
			return failingStore{Store: st, fail: func(ops []store.Op) bool {
				// The 2nd later chunk (the 3rd chunk) dies, once.
				return holdsEntry(ops, ledger.EntryDistributionCredit) && chunkWrites.Add(1) == 2
			}}
		}
		e := newEnv(t, b, options{store: crash})
		acct := e.Account.ID
		n := 4*ChunkLines + 7
		bens := e.many(n)
		ls, total := lines(bens, "KZT")
		e.fund(acct, total, "KZT")
		r := e.post("/v1/distributions", map[string]any{"reference": "crash", "lines": ls})
		require.Equal(t, 201, r.Status, string(r.Body))
		id := r.Map(t)["id"].(string)
		got := e.Do("GET", "/v1/distributions/"+id, nil).Map(t)
		assert.Equal(t, "processing", got["status"], "the process died between chunks")
		assert.EqualValues(t, 2*ChunkLines, got["credited_lines"])
		assert.EqualValues(t, 0, e.bal(acct, "KZT", ledger.Available), "the whole total left available at once")
		var credited int64
		for i := 0; i < 2*ChunkLines; i++ {
			credited += int64(i + 1)
		}
		assert.EqualValues(t, total-credited, e.bal(acct, "KZT", ledger.Distributing))
		e.check(acct)

		res, err := e.svc.Sweep(context.Background())
		require.NoError(t, err)
		assert.Zero(t, res.Resumed, "not old enough: the request may still be at it")
		e.Clock.Advance(ResumeAge + time.Second)
		var wg sync.WaitGroup
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := e.svc.Sweep(context.Background())
				assert.NoError(t, err)
			}()
		}
		wg.Wait()
		got = e.Do("GET", "/v1/distributions/"+id, nil).Map(t)
		assert.Equal(t, "completed", got["status"])
		for i, ben := range bens {
			assert.EqualValues(t, i+1, e.bal(acct, "KZT", ledger.Beneficiary(ben)), "line %d credited once", i)
		}
		assert.EqualValues(t, 0, e.bal(acct, "KZT", ledger.Distributing))
		assert.Len(t, e.entriesOf(ledger.Source{Type: ledger.SourceDistribution, ID: id}), 5, "one entry per chunk")
		assert.Equal(t, 1, count(eventTypes(t, e), EventDistributionCompleted))
		e.check(acct)
	})
}

// TestDistributionNamingAnotherAccountsBeneficiary: one line (of a few, or
// the 301st of 400) for another account's beneficiary is a 404 naming that
// line, and nothing moves: available, the beneficiaries and the other
// account's books are untouched and no distribution is stored; on both
// stores.
func TestDistributionNamingAnotherAccountsBeneficiary(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		acct := e.Account.ID
		other, otherKey := e.other()
		r := e.DoKey(otherKey, "POST", "/v1/merchants/beneficiaries", personBody(ibanPaid), "Idempotency-Key", e.key())
		require.Equal(t, 201, r.Status, string(r.Body))
		foreign := r.Map(t)["id"].(string)
		bens := e.many(400)
		ls, total := lines(bens, "KZT")
		e.fund(acct, total, "KZT")
		for _, c := range []struct {
			lines []any
			at    int
		}{{ls[:3], 1}, {ls, 300}} {
			bad := append([]any(nil), c.lines...)
			bad[c.at] = map[string]any{"beneficiary_id": foreign, "amount": map[string]any{"value": 5, "currency": "KZT"}}
			r := e.post("/v1/distributions", map[string]any{"reference": "stolen", "lines": bad})
			require.Equal(t, 404, r.Status, string(r.Body))
			_, param := errOf(t, r)
			assert.Equal(t, fmt.Sprintf("lines[%d].beneficiary_id", c.at), param)
		}
		assert.EqualValues(t, total, e.bal(acct, "KZT", ledger.Available), "nothing moved")
		assert.EqualValues(t, 0, e.bal(acct, "KZT", ledger.Distributing))
		assert.EqualValues(t, 0, e.bal(acct, "KZT", ledger.BeneficiariesHeld))
		assert.EqualValues(t, 0, e.bal(other.ID, "KZT", ledger.Beneficiary(foreign)))
		assert.EqualValues(t, 0, e.bal(acct, "KZT", ledger.Beneficiary(foreign)))
		var list struct {
			Data []map[string]any `json:"data"`
		}
		e.Do("GET", "/v1/distributions", nil).JSON(t, &list)
		assert.Empty(t, list.Data, "no distribution stored")
		e.check(acct)
	})
}

// TestDistributionBadInput: the body's rules are a 400 naming the field, a
// disabled beneficiary a 409, a total above available a 400
// insufficient_balance; none stores or moves anything; on both stores.
func TestDistributionBadInput(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		acct := e.Account.ID
		bens := e.many(3)
		e.fund(acct, 100, "KZT")
		line := func(id string, v int64, cur string) map[string]any {
			return map[string]any{"beneficiary_id": id, "amount": map[string]any{"value": v, "currency": cur}}
		}
		tooMany := make([]any, MaxLines+1)
		for i := range tooMany {
			tooMany[i] = line(ids.New(), 1, "KZT")
		}
		for _, c := range []struct {
			name  string
			body  map[string]any
			param string
		}{
			{"no lines", map[string]any{"reference": "r", "lines": []any{}}, "lines"},
			{"501 lines", map[string]any{"reference": "r", "lines": tooMany}, "lines"},
			{"no reference", map[string]any{"lines": []any{line(bens[0], 1, "KZT")}}, "reference"},
			{"a beneficiary twice", map[string]any{"reference": "r", "lines": []any{line(bens[0], 1, "KZT"), line(bens[0], 2, "KZT")}}, "lines[1].beneficiary_id"},
			{"two currencies", map[string]any{"reference": "r", "lines": []any{line(bens[0], 1, "KZT"), line(bens[1], 2, "USD")}}, "lines[1].amount.currency"},
			{"a zero amount", map[string]any{"reference": "r", "lines": []any{line(bens[0], 0, "KZT")}}, "lines[0].amount.value"},
			{"a bad id", map[string]any{"reference": "r", "lines": []any{line("ben-1", 1, "KZT")}}, "lines[0].beneficiary_id"},
		} {
			r := e.post("/v1/distributions", c.body)
			require.Equal(t, 400, r.Status, "%s: %s", c.name, r.Body)
			_, param := errOf(t, r)
			assert.Equal(t, c.param, param, c.name)
		}
		r := e.post("/v1/distributions", map[string]any{"reference": "r", "lines": []any{line(bens[0], 60, "KZT"), line(bens[1], 41, "KZT")}})
		require.Equal(t, 400, r.Status, string(r.Body))
		code, param := errOf(t, r)
		assert.Equal(t, "insufficient_balance", code)
		assert.Equal(t, "lines", param)

		require.Equal(t, 200, e.post("/v1/merchants/beneficiaries/"+bens[2], map[string]any{"status": "disabled"}).Status)
		r = e.post("/v1/distributions", map[string]any{"reference": "r", "lines": []any{line(bens[0], 1, "KZT"), line(bens[2], 1, "KZT")}})
		require.Equal(t, 409, r.Status, string(r.Body))
		code, param = errOf(t, r)
		assert.Equal(t, "beneficiary_disabled", code)
		assert.Equal(t, "lines[1].beneficiary_id", param)

		r = e.Do("POST", "/v1/distributions", map[string]any{"reference": "r", "lines": []any{line(bens[0], 1, "KZT")}})
		require.Equal(t, 400, r.Status, "Idempotency-Key is required")

		assert.EqualValues(t, 100, e.bal(acct, "KZT", ledger.Available), "nothing moved")
		var list struct {
			Data []map[string]any `json:"data"`
		}
		e.Do("GET", "/v1/distributions", nil).JSON(t, &list)
		assert.Empty(t, list.Data)
		for q, param := range map[string]string{"status=pending": "status", "created_from=x": "created_from"} {
			r := e.Do("GET", "/v1/distributions?"+q, nil)
			require.Equal(t, 400, r.Status, q)
			_, p := errOf(t, r)
			assert.Equal(t, param, p, q)
		}
	})
}

func countEntries(ts []ledger.EntryType, t ledger.EntryType) int {
	n := 0
	for _, x := range ts {
		if x == t {
			n++
		}
	}
	return n
}

// TestNoDistributionWhileOwed: available goes to beneficiaries only while
// the account owes nothing from disputes in that currency (a debt is repaid
// from available first): refused with insufficient_balance naming the debt,
// nothing credited; once repaid, the same request goes through; another
// currency is not held by it; on both stores.
func TestNoDistributionWhileOwed(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		acct, now := e.Account.ID, e.Clock.Now()
		ben := e.beneficiary(personBody(ibanPaid))
		e.fund(acct, 10000, "KZT")
		e.fund(acct, 10000, "USD")
		// A dispute held with nothing taken from available: all of it owed.
		var h ledger.Batch
		h.DisputeHold(ledger.DisputeMove{AccountID: acct, Currency: "KZT", DisputeID: ids.New(), Amount: 3000}, ledger.Funds{}, now)
		ops, err := h.Ops(now)
		require.NoError(t, err)
		require.NoError(t, e.Deps.Store.Write(context.Background(), ops...))

		r := e.distribute("KZT", map[string]int64{ben: 500})
		require.Equal(t, 400, r.Status, string(r.Body))
		assert.Equal(t, "insufficient_balance", r.Err(t)["code"])
		assert.Contains(t, string(r.Body), "owes 30.00 KZT")
		bal, err := ledgertest.BalanceOf(context.Background(), e.Deps.Store, acct, "KZT", ledger.Available)
		require.NoError(t, err)
		assert.EqualValues(t, 10000, bal, "nothing left available")

		require.Equal(t, 201, e.distribute("USD", map[string]int64{ben: 500}).Status, "another currency owes nothing")
		_, err = ledger.Recover(context.Background(), e.Deps.Store, now)
		require.NoError(t, err)
		require.Equal(t, 201, e.distribute("KZT", map[string]int64{ben: 500}).Status)
		e.check(acct)
	})
}

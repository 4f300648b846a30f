package disputes

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/sandbox/issuer"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/testkit/apitest"
	"github.com/paygate/paygate/shared/testkit/ledgertest"
)

// TestOpenAndAccept: the sandbox opens a dispute on a captured payment: it
// needs a response by due_by, holds the amount and the fee (available ->
// disputed), marks the transaction, writes dispute.created; accepting loses
// it at once (the amount to the cardholder, the fee kept), writes
// dispute.closed, and the payment cannot be refunded; the books balance
// after each step; on both stores.
func TestOpenAndAccept(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		tx := e.payment("", 10000, 10000)
		require.EqualValues(t, 10000, e.bal()["available"])

		d := e.open(tx, map[string]any{"amount": 6000, "reason": "fraudulent"})
		id := d["id"].(string)
		assert.Equal(t, "dispute", d["object"])
		assert.Equal(t, "needs_response", d["status"])
		assert.Equal(t, "fraudulent", d["reason"])
		assert.Equal(t, tx, d["transaction_id"])
		assert.Equal(t, map[string]any{"value": float64(6000), "currency": "EUR"}, d["amount"])
		assert.Equal(t, map[string]any{"value": float64(1500), "currency": "EUR"}, d["fee"], "15.00 EUR")
		due, err := time.Parse(time.RFC3339, d["due_by"].(string))
		require.NoError(t, err)
		assert.WithinDuration(t, e.Clock.Now().Add(DefaultResponseWindow), due, time.Second)
		assert.Equal(t, map[string]int64{"available": 2500, "pending": 0, "reserved": 0, "disputed": 7500, "owed": 0}, e.bal())
		p := e.tx(tx)
		assert.Equal(t, true, p["disputed"])
		assert.Equal(t, id, p["dispute_id"])
		assert.Equal(t, "charged", p["status"], "the payment's status is untouched")
		e.checkBooks(e.Account.ID)

		r := e.post("/v1/transactions/"+tx+"/refund", map[string]any{"amount": 100})
		require.Equal(t, 409, r.Status, "%s", r.Body)
		code, _ := errOf(t, r)
		assert.Equal(t, "payment_disputed", code)

		r = e.post("/v1/disputes/"+id+"/accept", nil)
		require.Equal(t, 200, r.Status, "%s", r.Body)
		d = r.Map(t)
		assert.Equal(t, "lost", d["status"])
		assert.Equal(t, "accepted", d["closed_reason"])
		assert.NotEmpty(t, d["closed_at"])
		assert.Equal(t, map[string]int64{"available": 2500, "pending": 0, "reserved": 0, "disputed": 0, "owed": 0}, e.bal(),
			"the amount went back to the cardholder, the fee was kept")
		assert.Equal(t, []string{EventCreated, EventClosed}, e.events(id))
		r = e.post("/v1/transactions/"+tx+"/refund", map[string]any{"amount": 100})
		require.Equal(t, 409, r.Status, "a lost dispute paid the cardholder back: no refund on top")
		e.checkBooks(e.Account.ID)

		es, err := ledgertest.EntriesOf(context.Background(), e.Deps.Store, e.Account.ID, ledger.Source{Type: ledger.SourceDispute, ID: id})
		require.NoError(t, err)
		require.Len(t, es, 2)
		byType := map[ledger.EntryType][]ledger.Posting{}
		for _, en := range es {
			byType[en.Type] = en.Postings
		}
		assert.ElementsMatch(t, []ledger.Posting{{Account: ledger.Available, Amount: -7500}, {Account: ledger.Disputed, Amount: 7500}},
			byType[ledger.EntryDisputeHold])
		assert.ElementsMatch(t, []ledger.Posting{{Account: ledger.Disputed, Amount: -7500}, {Account: ledger.Processor, Amount: 6000},
			{Account: ledger.Fees, Amount: 1500}}, byType[ledger.EntryDisputeLoss])

		r = e.post("/v1/disputes/"+id+"/accept", nil)
		require.Equal(t, 409, r.Status)
		code, _ = errOf(t, r)
		assert.Equal(t, "dispute_closed", code)
	})
}

// TestEvidenceSubmitWonAndLost: evidence (a description and documents) is
// added in calls, submitted (under_review), and the sandbox's decision is
// applied by the sweeper once the review ends: winning_evidence wins (the
// hold comes back, refunds are allowed again), losing_evidence loses; the
// documents' bytes read back exactly; the books balance; on both stores.
func TestEvidenceSubmitWonAndLost(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		for _, c := range []struct {
			marker, want string
			inDoc        bool
		}{{issuer.WinningEvidence, "won", true}, {issuer.LosingEvidence, "lost", false}, {"nothing decisive", "lost", true}} {
			tx := e.payment("", 20000, 20000)
			before := e.bal()
			id := e.open(tx, nil)["id"].(string)
			text := "the customer signed for the parcel"
			if !c.inDoc {
				text += "; " + c.marker
			}
			r := e.post("/v1/disputes/"+id+"/evidence", map[string]any{"description": text})
			require.Equal(t, 200, r.Status, "%s", r.Body)
			// A document spanning several chunks, holding the marker at its end.
			big := sized(2*ChunkSize+123, 'x')
			if c.inDoc {
				copy(big[len(big)-len(c.marker)-1:], c.marker)
			}
			r = e.post("/v1/disputes/"+id+"/evidence", map[string]any{"documents": []any{
				doc("receipt.pdf", "application/pdf", big), doc("note.txt", "text/plain", []byte("delivered on 3 May")),
			}, "metadata": map[string]any{"case": "44"}})
			require.Equal(t, 200, r.Status, "%s", r.Body)
			d := r.Map(t)
			assert.Equal(t, "needs_response", d["status"])
			ev := d["evidence"].(map[string]any)
			assert.Equal(t, text, ev["description"], "kept from the first call")
			docs := ev["documents"].([]any)
			require.Len(t, docs, 2)
			assert.EqualValues(t, len(big)+18, num(ev["size"]))
			assert.Equal(t, map[string]any{"case": "44"}, d["metadata"])
			assert.Equal(t, 3+1, e.chunks(e.Account.ID, id))
			first := docs[0].(map[string]any)
			got, data, err := e.svc.Document(context.Background(), e.Account.ID, id, first["id"].(string))
			require.NoError(t, err)
			assert.Equal(t, big, data, "the bytes read back exactly")
			assert.Equal(t, "receipt.pdf", got.Name)

			r = e.post("/v1/disputes/"+id+"/submit", nil)
			require.Equal(t, 200, r.Status, "%s", r.Body)
			assert.Equal(t, "under_review", r.Map(t)["status"])
			assert.NotEmpty(t, r.Map(t)["submitted_at"])
			r = e.post("/v1/disputes/"+id+"/evidence", map[string]any{"description": "late"})
			require.Equal(t, 409, r.Status, "no evidence once submitted")

			assert.Zero(t, e.sweep(), "the review has not ended")
			e.Clock.Advance(issuer.Review)
			assert.Equal(t, 1, e.sweep())
			d = e.get(id)
			assert.Equal(t, c.want, d["status"], c.marker)
			assert.Equal(t, "reviewed", d["closed_reason"])
			assert.Equal(t, []string{EventCreated, EventUpdated, EventUpdated, EventUpdated, EventClosed}, e.events(id))
			after := e.bal()
			if c.want == "won" {
				assert.Equal(t, before, after, "won: amount and fee released")
				r = e.post("/v1/transactions/"+tx+"/refund", map[string]any{"amount": 100})
				assert.Equal(t, 200, r.Status, "a won dispute's payment may be refunded: %s", r.Body)
			} else {
				assert.Equal(t, before["available"]-20000-1500, after["available"], "lost: the amount went back to the cardholder, the fee was kept")
				assert.Zero(t, after["disputed"])
			}
			e.checkBooks(e.Account.ID)
		}
	})
}

// TestEvidenceOver5MBIs413: the documents of a dispute hold at most 5 MiB:
// two calls of 3,000,000 bytes each (each within the route's 4 MiB body
// limit) make the second a 413 evidence_too_large that stores nothing (its
// chunks are removed); a body over 4 MiB is a 413 from the platform; what
// fits the rest is still accepted; on both stores.
func TestEvidenceOver5MBIs413(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		id := e.open(e.payment("", 5000, 5000), nil)["id"].(string)
		three := sized(3000000, 'a')
		r := e.post("/v1/disputes/"+id+"/evidence", map[string]any{"documents": []any{doc("a.pdf", "application/pdf", three)}})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		chunks := e.chunks(e.Account.ID, id)
		assert.Equal(t, 9, chunks)

		r = e.post("/v1/disputes/"+id+"/evidence", map[string]any{"description": "more",
			"documents": []any{doc("b.pdf", "application/pdf", sized(3000000, 'b'))}})
		require.Equal(t, 413, r.Status, "%s", r.Body)
		code, param := errOf(t, r)
		assert.Equal(t, "evidence_too_large", code)
		assert.Equal(t, "documents", param)
		d := e.get(id)
		ev := d["evidence"].(map[string]any)
		assert.Len(t, ev["documents"], 1, "nothing of the refused call was stored")
		assert.Equal(t, "", ev["description"])
		assert.Equal(t, chunks, e.chunks(e.Account.ID, id), "and none of its chunks")

		// One body over the route's 4 MiB.
		r = e.post("/v1/disputes/"+id+"/evidence", map[string]any{"documents": []any{
			doc("c.pdf", "application/pdf", sized(2000000, 'c')), doc("d.pdf", "application/pdf", sized(1200000, 'd'))}})
		require.Equal(t, 413, r.Status, "%s", r.Body)

		// Exactly up to 5 MiB fits.
		rest := MaxEvidenceSize - len(three)
		r = e.post("/v1/disputes/"+id+"/evidence", map[string]any{"documents": []any{doc("e.pdf", "application/pdf", sized(rest, 'e'))}})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		assert.EqualValues(t, MaxEvidenceSize, num(r.Map(t)["evidence"].(map[string]any)["size"]))
		r = e.post("/v1/disputes/"+id+"/evidence", map[string]any{"documents": []any{doc("f.txt", "text/plain", []byte("x"))}})
		require.Equal(t, 413, r.Status, "one byte more: %s", r.Body)
	})
}

// TestSubmitTwiceIs409: a second submit (another key) is a 409 naming the
// status; the same key replays the first answer; submitting without
// evidence is a 400; on both stores.
func TestSubmitTwiceIs409(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		id := e.open(e.payment("", 5000, 5000), nil)["id"].(string)
		r := e.post("/v1/disputes/"+id+"/submit", nil)
		require.Equal(t, 400, r.Status, "%s", r.Body)
		code, _ := errOf(t, r)
		assert.Equal(t, "evidence_missing", code)

		require.Equal(t, 200, e.post("/v1/disputes/"+id+"/evidence", map[string]any{"description": "proof"}).Status)
		key := e.key()
		first := e.Do("POST", "/v1/disputes/"+id+"/submit", map[string]any{}, "Idempotency-Key", key)
		require.Equal(t, 200, first.Status, "%s", first.Body)
		again := e.Do("POST", "/v1/disputes/"+id+"/submit", map[string]any{}, "Idempotency-Key", key)
		require.Equal(t, 200, again.Status)
		assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
		assert.JSONEq(t, string(first.Body), string(again.Body))

		r = e.post("/v1/disputes/"+id+"/submit", nil)
		require.Equal(t, 409, r.Status, "%s", r.Body)
		code, _ = errOf(t, r)
		assert.Equal(t, "dispute_state_conflict", code)
		assert.Contains(t, r.Err(t)["message"], "under_review")
		r = e.post("/v1/disputes/"+id+"/accept", nil)
		require.Equal(t, 409, r.Status, "under review: no accepting")
		assert.Equal(t, []string{EventCreated, EventUpdated, EventUpdated}, e.events(id))
	})
}

// TestOtherAccountIs404: another account's dispute, and another account's
// transaction for the helper, answer 404 on every route, exactly as a
// missing one, and change nothing; on both stores.
func TestOtherAccountIs404(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		tx := e.payment("", 5000, 5000)
		id := e.open(tx, nil)["id"].(string)
		_, other := e.NewAccount(accounts.Test)
		missing := ids.New()
		for _, c := range []struct{ method, path string }{
			{"GET", "/v1/disputes/%s"},
			{"POST", "/v1/disputes/%s/accept"},
			{"POST", "/v1/disputes/%s/submit"},
			{"POST", "/v1/disputes/%s/evidence"},
		} {
			var body any
			if strings.HasSuffix(c.path, "evidence") {
				body = map[string]any{"description": "mine", "documents": []any{doc("a.txt", "text/plain", []byte("x"))}}
			}
			for _, target := range []string{id, missing} {
				r := e.DoKey(other, c.method, strings.Replace(c.path, "%s", target, 1), body, "Idempotency-Key", e.key())
				require.Equal(t, 404, r.Status, "%s %s: %s", c.method, c.path, r.Body)
				code, _ := errOf(t, r)
				assert.Equal(t, "resource_missing", code)
			}
		}
		r := e.DoKey(other, "POST", "/test-helpers/transactions/"+tx+"/dispute", nil, "Idempotency-Key", e.key())
		require.Equal(t, 404, r.Status, "%s", r.Body)
		r = e.DoKey(other, "GET", "/v1/disputes", nil)
		require.Equal(t, 200, r.Status)
		assert.Empty(t, r.Map(t)["data"], "the list shows the caller's disputes only")
		d := e.get(id)
		assert.Equal(t, "needs_response", d["status"])
		assert.Empty(t, d["evidence"].(map[string]any)["documents"])
		assert.Zero(t, e.chunks(e.Account.ID, id))
	})
}

// TestOpenRefusals: the sandbox refuses a dispute on a refunded payment, on
// one not captured, on a refund transaction, a second one on a payment and
// an amount above what is left; a partially refunded payment is disputed
// for what is left; nothing is held by a refusal; on both stores.
func TestOpenRefusals(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		refunded := e.payment("", 4000, 4000)
		r := e.post("/v1/transactions/"+refunded+"/refund", nil)
		require.Equal(t, 200, r.Status, "%s", r.Body)
		refund := r.Map(t)["id"].(string)
		authorised := e.payment("", 4000, 0)
		partly := e.payment("", 4000, 4000)
		require.Equal(t, 200, e.post("/v1/transactions/"+partly+"/refund", map[string]any{"amount": 1000}).Status)
		before := e.bal()

		for _, c := range []struct {
			tx, code string
			status   int
			body     any
		}{
			{refunded, "payment_refunded", 409, nil},
			{authorised, "payment_not_captured", 409, nil},
			{refund, "transaction_not_disputable", 409, nil},
			{partly, "dispute_exceeds_balance", 400, map[string]any{"amount": 3001}},
			{ids.New(), "resource_missing", 404, nil},
		} {
			r := e.post("/test-helpers/transactions/"+c.tx+"/dispute", c.body)
			require.Equal(t, c.status, r.Status, "%s: %s", c.code, r.Body)
			code, _ := errOf(t, r)
			assert.Equal(t, c.code, code)
		}
		assert.Equal(t, before, e.bal(), "nothing held by a refusal")
		r = e.Do("GET", "/v1/disputes", nil)
		assert.Empty(t, r.Map(t)["data"])

		d := e.open(partly, nil)
		assert.EqualValues(t, 3000, num(d["amount"].(map[string]any)["value"]), "what is left of the payment")
		r = e.post("/test-helpers/transactions/"+partly+"/dispute", nil)
		require.Equal(t, 409, r.Status)
		code, _ := errOf(t, r)
		assert.Equal(t, "dispute_exists", code)
		e.checkBooks(e.Account.ID)
	})
}

// TestOldVersionIs400: under 2023-06-01, by header or by the account's
// default, every dispute route answers 400 naming the version it needs,
// in that version's error body, and changes nothing; 2023-09-01 works; on
// both stores.
func TestOldVersionIs400(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		tx := e.payment("", 5000, 5000)
		id := e.open(tx, nil)["id"].(string)
		routes := []struct{ method, path string }{
			{"GET", "/v1/disputes"},
			{"GET", "/v1/disputes/" + id},
			{"POST", "/v1/disputes/" + id + "/accept"},
			{"POST", "/v1/disputes/" + id + "/evidence"},
			{"POST", "/v1/disputes/" + id + "/submit"},
			{"POST", "/test-helpers/transactions/" + tx + "/dispute"},
		}
		legacy, key := e.NewAccount(accounts.Test)
		require.NoError(t, e.Deps.Keys.SetDefaultVersion(context.Background(), legacy.ID, "2023-06-01"))
		for _, rt := range routes {
			var body any
			if rt.method == "POST" {
				body = map[string]any{"description": "x"}
				if !strings.HasSuffix(rt.path, "evidence") {
					body = map[string]any{}
				}
			}
			for name, send := range map[string]func() *apitest.Resp{
				"header": func() *apitest.Resp {
					return e.Do(rt.method, rt.path, body, "Service-Version", "2023-06-01", "Idempotency-Key", e.key())
				},
				"default": func() *apitest.Resp { return e.DoKey(key, rt.method, rt.path, body, "Idempotency-Key", e.key()) },
			} {
				r := send()
				require.Equal(t, 400, r.Status, "%s %s (%s): %s", rt.method, rt.path, name, r.Body)
				m := r.Map(t)
				assert.Equal(t, "Service-Version", m["source"], "the 2023-06-01 error body names the header")
				assert.Contains(t, m["message"], "2023-09-01")
				assert.Equal(t, "2023-06-01", r.Header.Get("Service-Version"))
			}
		}
		assert.Equal(t, "needs_response", e.get(id)["status"])
		r := e.Do("GET", "/v1/disputes/"+id, nil, "Service-Version", "2023-09-01")
		require.Equal(t, 200, r.Status)
		assert.NotContains(t, r.Map(t), "metadata", "no metadata before 2024-01-15")
		// The transaction says it is disputed from 2023-09-01 only.
		assert.Contains(t, e.Do("GET", "/v1/transactions/"+tx, nil, "Service-Version", "2023-09-01").Map(t), "dispute_id")
		old := e.Do("GET", "/v1/transactions/"+tx, nil, "Service-Version", "2023-06-01").Map(t)
		assert.NotContains(t, old, "dispute_id")
		assert.NotContains(t, old, "disputed")
	})
}

// TestDueByExpires: a dispute not submitted by due_by is lost (expired):
// by the sweeper, or at once by the first call on it after due_by (a 409
// dispute_expired), never both; the hold is kept; on both stores.
func TestDueByExpires(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		due := e.Clock.Now().Add(time.Hour).Format(time.RFC3339)
		swept := e.open(e.payment("", 5000, 5000), map[string]any{"due_by": due})["id"].(string)
		called := e.open(e.payment("", 5000, 5000), map[string]any{"due_by": due})["id"].(string)
		require.Equal(t, 200, e.post("/v1/disputes/"+called+"/evidence", map[string]any{"description": "proof"}).Status)
		assert.Zero(t, e.sweep())

		e.Clock.Advance(time.Hour)
		r := e.post("/v1/disputes/"+called+"/submit", nil)
		require.Equal(t, 409, r.Status, "%s", r.Body)
		code, _ := errOf(t, r)
		assert.Equal(t, "dispute_expired", code)
		d := e.get(called)
		assert.Equal(t, "lost", d["status"])
		assert.Equal(t, "expired", d["closed_reason"])

		assert.Equal(t, 1, e.sweep(), "the other one; the called one is closed already")
		d = e.get(swept)
		assert.Equal(t, "lost", d["status"])
		assert.Equal(t, "expired", d["closed_reason"])
		assert.Zero(t, e.sweep())
		assert.Equal(t, []string{EventCreated, EventClosed}, e.events(swept))
		assert.Equal(t, []string{EventCreated, EventUpdated, EventClosed}, e.events(called))
		assert.Zero(t, e.bal()["disputed"])
		e.checkBooks(e.Account.ID)

		r = e.post("/test-helpers/transactions/"+e.payment("", 100, 100)+"/dispute", map[string]any{"due_by": e.Clock.Now().Add(-time.Second).Format(time.RFC3339)})
		require.Equal(t, 400, r.Status)
		_, param := errOf(t, r)
		assert.Equal(t, "due_by", param)
	})
}

// TestHoldBeyondAvailableIsOwed: a dispute larger than the available
// balance is opened all the same (a merchant cannot refuse a chargeback):
// available gives what it has, the rest is owed (a negative balance); the
// sweeper repays it from what becomes available, a won dispute's release
// repays it first; the books balance throughout; on both stores.
func TestHoldBeyondAvailableIsOwed(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		tx := e.payment("", 10000, 10000)
		// Spend most of it: a refund of another payment's worth.
		require.Equal(t, 200, e.post("/v1/transactions/"+e.payment("", 9000, 9000)+"/refund", map[string]any{"amount": 9000}).Status)
		require.Equal(t, 200, e.post("/v1/transactions/"+tx+"/refund", map[string]any{"amount": 8000}).Status)
		require.EqualValues(t, 2000, e.bal()["available"])

		lost := e.open(tx, nil)["id"].(string) // 2000 + 1500 fee, 2000 available
		assert.Equal(t, map[string]int64{"available": 0, "pending": 0, "reserved": 0, "disputed": 3500, "owed": -1500}, e.bal())
		e.checkBooks(e.Account.ID)
		require.Equal(t, 200, e.post("/v1/disputes/"+lost+"/accept", nil).Status)
		assert.Equal(t, map[string]int64{"available": 0, "pending": 0, "reserved": 0, "disputed": 0, "owed": -1500}, e.bal())

		// A new capture lands in available; the sweeper repays the debt.
		e.payment("", 1000, 1000)
		e.sweep()
		assert.Equal(t, map[string]int64{"available": 0, "pending": 0, "reserved": 0, "disputed": 0, "owed": -500}, e.bal())
		e.checkBooks(e.Account.ID)

		// A dispute won repays the rest from its release.
		won := e.open(e.payment("", 3000, 3000), nil)["id"].(string) // 4500 held: 3000 from available, 1500 owed
		assert.Equal(t, map[string]int64{"available": 0, "pending": 0, "reserved": 0, "disputed": 4500, "owed": -2000}, e.bal())
		require.Equal(t, 200, e.post("/v1/disputes/"+won+"/evidence", map[string]any{"description": issuer.WinningEvidence}).Status)
		require.Equal(t, 200, e.post("/v1/disputes/"+won+"/submit", nil).Status)
		e.Clock.Advance(issuer.Review)
		assert.Equal(t, 1, e.sweep())
		assert.Equal(t, map[string]int64{"available": 2500, "pending": 0, "reserved": 0, "disputed": 0, "owed": 0}, e.bal())
		e.checkBooks(e.Account.ID)
		n, err := ledger.Recover(context.Background(), e.Deps.Store, e.Clock.Now())
		require.NoError(t, err)
		assert.Zero(t, n, "nothing owed any more")
	})
}

// TestListFilters: the list is newest first, filtered by status,
// transaction and created range (from, to, both; combinable with status),
// paged by cursor, and refuses an unknown status; on both stores.
func TestListFilters(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		var ids3 []string
		start := e.Clock.Now().Truncate(time.Second).Add(time.Second) // the filters take RFC 3339 seconds
		e.Clock.Set(start)
		for i := 0; i < 3; i++ {
			e.Clock.Advance(time.Second)
			ids3 = append(ids3, e.open(e.payment("", 1000, 1000), nil)["id"].(string))
		}
		require.Equal(t, 200, e.post("/v1/disputes/"+ids3[1]+"/accept", nil).Status)
		list := func(q string) []string {
			r := e.Do("GET", "/v1/disputes"+q, nil)
			require.Equal(t, 200, r.Status, "%s", r.Body)
			out := []string{}
			for _, d := range r.Map(t)["data"].([]any) {
				out = append(out, d.(map[string]any)["id"].(string))
			}
			return out
		}
		at := func(d time.Duration) string { return start.Add(d).Format(time.RFC3339) }
		assert.Equal(t, []string{ids3[2], ids3[1], ids3[0]}, list(""))
		assert.Equal(t, []string{ids3[1]}, list("?status=lost"))
		assert.Equal(t, []string{ids3[2], ids3[0]}, list("?status=needs_response"))
		assert.Empty(t, list("?status=won"))
		tx := e.get(ids3[0])["transaction_id"].(string)
		assert.Equal(t, []string{ids3[0]}, list("?transaction_id="+tx))
		assert.Equal(t, []string{ids3[2], ids3[1]}, list("?created_from="+at(2*time.Second)))
		assert.Equal(t, []string{ids3[1], ids3[0]}, list("?created_to="+at(2*time.Second)))
		assert.Equal(t, []string{ids3[1]}, list("?created_from="+at(2*time.Second)+"&created_to="+at(2*time.Second)))
		assert.Equal(t, []string{ids3[2]}, list("?status=needs_response&created_from="+at(2*time.Second)))
		assert.Empty(t, list("?created_from="+at(time.Hour)))
		r := e.Do("GET", "/v1/disputes?limit=2", nil)
		m := r.Map(t)
		assert.Equal(t, true, m["has_more"])
		r = e.Do("GET", "/v1/disputes?limit=2&cursor="+m["next_cursor"].(string), nil)
		require.Equal(t, 200, r.Status)
		assert.Len(t, r.Map(t)["data"], 1)
		for _, q := range []string{"?status=open", "?created_from=yesterday", "?transaction_id=nope", "?limit=0"} {
			r = e.Do("GET", "/v1/disputes"+q, nil)
			require.Equal(t, 400, r.Status, "%s: %s", q, r.Body)
		}
	})
}

// TestNoPayoutWhileOwed: a debt from disputes is repaid from available
// before anything leaves it, so a payout is refused while one is open
// (400 insufficient_balance naming the debt, nothing reserved), even with
// available above the payout, and goes through once the sweeper has repaid
// it; on both stores.
func TestNoPayoutWhileOwed(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		r := e.post("/v1/payouts/cards", map[string]any{"number": "4000056655665556", "expiry_month": 3, "expiry_year": e.Clock.Now().Year() + 2, "holder_name": "J. Smith"})
		require.Equal(t, 201, r.Status, string(r.Body))
		card := r.Map(t)["id"].(string)
		payout := func(value int64) *apitest.Resp {
			return e.post("/v1/payouts", map[string]any{"amount": map[string]any{"value": value, "currency": "EUR"}, "payout_card_id": card, "reference": "weekly"})
		}

		tx := e.payment("", 1000, 1000)
		e.open(tx, nil) // 1000 + 1500 fee against 1000 available: 1500 owed
		e.payment("", 700, 700)
		require.Equal(t, map[string]int64{"available": 700, "pending": 0, "reserved": 0, "disputed": 2500, "owed": -1500}, e.bal())
		r = payout(500)
		require.Equal(t, 400, r.Status, string(r.Body))
		code, param := errOf(t, r)
		assert.Equal(t, "insufficient_balance", code)
		assert.Equal(t, "amount.value", param)
		assert.Contains(t, string(r.Body), "owes 15.00 EUR")
		assert.EqualValues(t, 700, e.bal()["available"], "nothing reserved")
		assert.EqualValues(t, 0, e.bal()["reserved"])

		// Repaid by the sweeper from what is captured next: the payout goes.
		e.payment("", 2000, 2000)
		e.sweep()
		require.EqualValues(t, 0, e.bal()["owed"])
		r = payout(500)
		require.Equal(t, 201, r.Status, string(r.Body))
		assert.Equal(t, map[string]int64{"available": 700, "pending": 0, "reserved": 500, "disputed": 2500, "owed": 0}, e.bal())
		e.checkBooks(e.Account.ID)
	})
}

package transactions

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// TestEveryCommittedModificationReachesTheProcessor: a partial capture, a
// final capture, two refunds and a cancel each reach the card processor
// once, as the change committed them (kind, amount, currency, the payment's
// reference), each with its own stable id; none is left due. Both stores.
func TestEveryCommittedModificationReachesTheProcessor(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		id := e.seed(seed{status: payments.Authorized, amount: 10000})
		for _, step := range []struct {
			path string
			body any
		}{
			{"capture", map[string]any{"amount": 3000}},
			{"capture", map[string]any{"amount": 5000, "final": true}},
			{"refund", map[string]any{"amount": 1000}},
			{"refund", nil},
		} {
			r := e.post("/v1/transactions/"+id+"/"+step.path, step.body)
			require.Equal(t, 200, r.Status, "%s: %s", step.path, r.Body)
		}
		other := e.seed(seed{status: payments.Authorized, amount: 2500, currency: "USD"})
		require.Equal(t, 200, e.post("/v1/transactions/"+other+"/cancel", nil).Status)

		got := e.proc.got()
		require.Len(t, got, 5)
		want := []struct {
			kind    string
			payment string
			amount  int64
		}{{"capture", id, 3000}, {"capture", id, 5000}, {"refund", id, 1000}, {"refund", id, 7000}, {"cancel", other, 2500}}
		seen := map[string]bool{}
		for i, w := range want {
			assert.Equal(t, w.kind, got[i].Kind, "modification %d", i)
			assert.Equal(t, w.payment, got[i].Payment, "modification %d", i)
			assert.Equal(t, w.amount, got[i].Amount, "modification %d", i)
			assert.False(t, seen[got[i].ID], "modification %d has an id of its own", i)
			seen[got[i].ID] = true
		}
		assert.Equal(t, "USD", got[4].Currency)
		assert.Equal(t, 0, e.modificationEntries(), "each was received: nothing is due")

		// A refused change reaches nobody.
		r := e.post("/v1/transactions/"+id+"/refund", map[string]any{"amount": 1})
		require.Equal(t, 400, r.Status, string(r.Body))
		assert.Len(t, e.proc.got(), 5)
	})
}

// TestAnUndeliveredModificationIsSentAgain: while the processor is down, a
// refund still answers 200 with the committed change and leaves its due
// entry; the sweeper sends nothing before the entry is due, then sends the
// same modification (same id) once the processor is back, and nothing after
// that. A refusal of a committed change is dropped (an operator settles it)
// rather than retried forever. Both stores.
func TestAnUndeliveredModificationIsSentAgain(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		ctx := context.Background()
		id := e.seed(seed{status: payments.Charged, amount: 4000})
		e.proc.failWith(apierr.Kindf(apierr.Unavailable, "processor down"))
		r := e.post("/v1/transactions/"+id+"/refund", map[string]any{"amount": 1500})
		require.Equal(t, 200, r.Status, string(r.Body))
		assert.Equal(t, "partially_refunded", e.get(id)["status"])
		assert.Empty(t, e.proc.got())
		assert.Equal(t, 1, e.modificationEntries())

		n, err := e.svc.Resend(ctx)
		require.NoError(t, err)
		assert.Zero(t, n, "not yet due")

		e.Clock.Advance(ResendAfter)
		n, err = e.svc.Resend(ctx)
		require.NoError(t, err)
		assert.Zero(t, n, "the processor is still down: the entry stays")
		assert.Equal(t, 1, e.modificationEntries())

		e.proc.failWith(nil)
		n, err = e.svc.Resend(ctx)
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		got := e.proc.got()
		require.Len(t, got, 1)
		assert.Equal(t, "refund", got[0].Kind)
		assert.Equal(t, int64(1500), got[0].Amount)
		assert.Equal(t, payments.ModificationID(id, len(e.history(id))-1), got[0].ID, "the id names the change's history entry")
		assert.Equal(t, 0, e.modificationEntries())
		n, err = e.svc.Resend(ctx)
		require.NoError(t, err)
		assert.Zero(t, n)

		// Refused after the commit: logged for an operator, not retried.
		e.proc.failWith(apierr.Kindf(apierr.Invalid, "refused by the acquirer"))
		require.Equal(t, 200, e.post("/v1/transactions/"+id+"/refund", map[string]any{"amount": 500}).Status)
		e.Clock.Advance(ResendAfter)
		n, err = e.svc.Resend(ctx)
		require.NoError(t, err)
		assert.Zero(t, n)
		assert.Equal(t, 0, e.modificationEntries(), "a refusal is not retried")
	})
}

func (e *env) history(id string) []any {
	e.T.Helper()
	r := e.Do("GET", "/v1/transactions/"+id+"/history", nil)
	require.Equal(e.T, 200, r.Status, string(r.Body))
	var out struct {
		Data []any `json:"data"`
	}
	r.JSON(e.T, &out)
	return out.Data
}

package wallet

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/testkit/ledgertest"
)

// TestCapturesAndRefundsPostToTheLedger: a wallet capture posts to the
// merchant's books (available at once in the sandbox) in its own
// transaction, a refund takes from available, and a refund that available
// cannot cover (the money was paid out) is a 400 insufficient_balance with
// nothing changed; on both stores.
func TestCapturesAndRefundsPostToTheLedger(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		ctx := context.Background()
		avail := func() int64 {
			n, err := ledgertest.BalanceOf(ctx, e.Deps.Store, e.Account.ID, "KZT", ledger.Available)
			require.NoError(t, err)
			return n
		}
		id := e.succeeded(150000)
		require.Equal(t, 200, e.post("/v1/wallet/"+id+"/capture", map[string]any{"amount": 100000}).Status)
		assert.Equal(t, int64(100000), avail())
		es, err := ledgertest.EntriesOf(ctx, e.Deps.Store, e.Account.ID, ledger.Source{Type: ledger.SourceWalletTransaction, ID: id})
		require.NoError(t, err)
		require.Len(t, es, 1, "settled at once: one entry")
		assert.Equal(t, ledger.EntryCapture, es[0].Type)
		assert.Equal(t, []ledger.Posting{{Account: ledger.Processor, Amount: -100000}, {Account: ledger.Available, Amount: 100000}}, es[0].Postings)

		require.Equal(t, 200, e.post("/v1/wallet/"+id+"/refund", map[string]any{"amount": 40000}).Status)
		assert.Equal(t, int64(60000), avail())

		// The rest is reserved for a payout: the next refund finds nothing available.
		var pb ledger.Batch
		pb.Reserve(ledger.PayoutMove{AccountID: e.Account.ID, Currency: "KZT", PayoutID: ids.New(), Amount: 60000}, time.Now())
		ops, err := pb.Ops(time.Now())
		require.NoError(t, err)
		require.NoError(t, e.Deps.Store.Write(ctx, ops...))
		r := e.post("/v1/wallet/"+id+"/refund", map[string]any{"amount": 1})
		require.Equal(t, 400, r.Status, string(r.Body))
		assert.Equal(t, "insufficient_balance", r.Err(t)["code"])
		assert.Equal(t, "amount", r.Err(t)["param"])
		assert.EqualValues(t, 40000, e.get(id)["refundedAmount"], "nothing refunded")

		rep, err := ledger.Check(ctx, e.Deps.Store, e.Account.ID)
		require.NoError(t, err)
		assert.True(t, rep.OK(), rep.String())
	})
}

package payments

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// TestCaptureWithSplitItems counts the items one capture of a split payment
// writes (doc.go of shared/domain/ledger repeats it): the payment, its expiry
// entry's removal, its event, three entries (capture, split, settlement),
// the balances (available, one per part; pending nets to zero; the
// processor keeps no counter), the split's copy and its applied event: 9 +
// the parts, plus the Idempotency-Key's record that idempotency.Commit adds.
// Building the ops twice gives the same writes (SaveOps leaves the record
// unchanged); Saved adopts the split as stored.
func TestCaptureWithSplitItems(t *testing.T) {
	now := time.Now()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "s.db"), nil)
	require.NoError(t, err)
	defer st.Close()
	repo := NewRepo(st)
	pct, amt := int64(20), int64(1500)
	p := New(Payment{ID: "pay1", AccountID: "acct1", Amount: 10000, Currency: "EUR", MerchantReference: "o-1"}, now)
	require.NoError(t, p.Transition(Authorized, "", now))
	p.Split = &ledger.Split{ID: "spl1", Parts: []ledger.SplitPart{{Reference: "a", Percentage: &pct}, {Reference: "b", Amount: &amt}}}
	require.NoError(t, p.Split.Resolve(p.Amount))
	require.NoError(t, repo.Save(context.Background(), p))

	got, err := repo.Get(context.Background(), "acct1", "pay1")
	require.NoError(t, err)
	require.NoError(t, got.Capture(Op{}, now))
	ops, err := repo.SaveOps(got)
	require.NoError(t, err)
	assert.Len(t, ops, 9+2, "one capture of a payment split in two parts")
	again, err := repo.SaveOps(got)
	require.NoError(t, err)
	assert.Len(t, again, len(ops))
	assert.False(t, got.Split.Applied(), "SaveOps leaves the record as read")
	require.NoError(t, st.Write(context.Background(), ops...))
	got.Saved()
	assert.True(t, got.Split.Applied())
	assert.EqualValues(t, 2000, got.Split.Parts[0].Captured)
	n := 0
	for _, op := range ops {
		if ledger.IsBalanceOp(op) {
			n++
		}
	}
	assert.Equal(t, 3, n, "available, partner:a, partner:b (the processor keeps no counter)")
	r, err := ledger.Check(context.Background(), st, "acct1")
	require.NoError(t, err)
	assert.True(t, r.OK(), r.String())
	assert.LessOrEqual(t, 11+ledger.MaxSplitParts+1+1, store.MaxTransactOps, "the most parts, a fee and the key's record still fit")
}

// TestAmountUpdateResolvesTheSplitAgain: an amount update of a split
// payment resolves its parts against the new amount (a percentage follows
// it, an amount stays), and refuses an amount the parts would exceed.
func TestAmountUpdateResolvesTheSplitAgain(t *testing.T) {
	now := time.Now()
	pct, amt := int64(10), int64(300)
	p := New(Payment{ID: "pay1", AccountID: "acct1", Amount: 1000, Currency: "EUR", CaptureMode: CaptureManual}, now)
	require.NoError(t, p.Authorise("", now))
	p.Split = &ledger.Split{ID: "spl1", Parts: []ledger.SplitPart{{Reference: "a", Percentage: &pct}, {Reference: "b", Amount: &amt}}}
	require.NoError(t, p.Split.Resolve(p.Amount))
	require.NoError(t, p.UpdateAmount(2000, "", now))
	assert.EqualValues(t, 200, p.Split.Parts[0].Share)
	assert.EqualValues(t, 300, p.Split.Parts[1].Share)
	err := p.UpdateAmount(310, "", now)
	require.Error(t, err)
	assert.Equal(t, "split_exceeds_payment", apierr.As(err).Code.Name())
	assert.EqualValues(t, 2000, p.Amount, "nothing changed")
}

package storetest

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/store"
)

// runExtras proves store.WithExtras: a request's extra writes commit with
// its next write, in the same transaction, or not at all.
func runExtras(t *testing.T, newStore NewStore) {
	put := func(k store.Key, data string, c store.Cond) store.Op {
		return store.Put(store.Item{Key: k, Data: []byte(data)}, c)
	}

	t.Run("CommitWithTheNextWriteOnce", func(t *testing.T) {
		f := setup(t, newStore)
		change, audit, later := f.key("change"), f.otherKey("audit"), f.key("later")
		ctx, x := store.WithExtras(f.ctx, put(audit, "entry", store.IfAbsent))
		require.False(t, x.Committed())
		require.NoError(t, f.s.Write(ctx, put(change, "c", store.IfAbsent)), "a single op carries the extras as a transaction")
		assert.True(t, x.Committed())
		got, err := f.get(audit)
		require.NoError(t, err)
		assert.Equal(t, []byte("entry"), got.Data)
		// Spent: a later write under the same context carries nothing (the
		// audit put, IfAbsent, would fail if it came again).
		require.NoError(t, f.s.Write(ctx, put(later, "l", store.Always)))
		got, err = f.get(audit)
		require.NoError(t, err)
		assert.Equal(t, int64(1), got.Version)
	})

	t.Run("AFailedChangeWritesNoExtra", func(t *testing.T) {
		f := setup(t, newStore)
		change, audit := f.key("change"), f.otherKey("audit")
		require.NoError(t, f.write(put(change, "c1", store.Always)))
		ctx, x := store.WithExtras(f.ctx, put(audit, "entry", store.IfAbsent))
		err := f.s.Write(ctx, put(change, "c2", store.IfVersion(7)))
		cf, ok := store.IsConditionFailed(err)
		require.True(t, ok, "want the change's condition failure, got %v", err)
		assert.Equal(t, 0, cf.Index, "the index names the caller's op")
		assert.False(t, x.Committed())
		_, err = f.get(audit)
		require.ErrorIs(t, err, store.ErrNotFound, "no extra without its change")

		// Still pending: the retry (a service re-reading after a lost race)
		// carries them.
		require.NoError(t, f.s.Write(ctx, put(change, "c2", store.IfVersion(1))))
		assert.True(t, x.Committed())
		_, err = f.get(audit)
		require.NoError(t, err)
	})

	t.Run("AFailedExtraStopsTheChange", func(t *testing.T) {
		f := setup(t, newStore)
		change, audit := f.key("change"), f.otherKey("audit")
		require.NoError(t, f.write(put(audit, "taken", store.Always)))
		ctx, x := store.WithExtras(f.ctx, put(audit, "entry", store.IfAbsent))
		err := f.s.Write(ctx, put(change, "c", store.IfAbsent), store.Add(f.key("n"), 5, false, store.Always))
		require.ErrorIs(t, err, store.ErrExtraFailed)
		_, ok := store.IsConditionFailed(err)
		require.False(t, ok, "an extra's failure is not one of the caller's conditions")
		assert.False(t, x.Committed())
		assert.True(t, x.Failed())
		_, err = f.get(change)
		require.ErrorIs(t, err, store.ErrNotFound, "the change did not happen")
		_, err = f.get(f.key("n"))
		require.ErrorIs(t, err, store.ErrNotFound)
	})

	t.Run("TheTransactionLimitCountsExtras", func(t *testing.T) {
		f := setup(t, newStore)
		ctx, x := store.WithExtras(f.ctx, put(f.otherKey("audit"), "entry", store.IfAbsent))
		ops := make([]store.Op, store.MaxTransactOps)
		for i := range ops {
			ops[i] = store.Add(f.key(string(rune('a'+i%26))+string(rune('a'+i/26))), 1, false, store.Always)
		}
		require.ErrorIs(t, f.s.Write(ctx, ops...), store.ErrInvalid, "100 ops and an extra do not fit one transaction")
		_, err := f.get(ops[0].Item.Key)
		require.ErrorIs(t, err, store.ErrNotFound)
		require.NoError(t, f.s.Write(ctx, ops[:store.MaxTransactOps-1]...), "99 and one do")
		assert.True(t, x.Committed())
	})

	t.Run("ConcurrentWritesCommitThemOnce", func(t *testing.T) {
		f := setup(t, newStore)
		audit := f.otherKey("audit")
		ctx, x := store.WithExtras(f.ctx, store.Add(audit, 1, false, store.Always))
		var wg sync.WaitGroup
		errs := make([]error, 16)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = f.s.Write(ctx, store.Add(f.key("n"), 1, false, store.Always))
			}()
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
		assert.True(t, x.Committed())
		got, err := f.get(audit)
		require.NoError(t, err)
		assert.Equal(t, int64(1), got.N, "the extras commit once")
		got, err = f.get(f.key("n"))
		require.NoError(t, err)
		assert.Equal(t, int64(16), got.N)
	})

	t.Run("SubmittedWritesCarryTheirOwn", func(t *testing.T) {
		f := setup(t, newStore)
		p, ok := f.s.(store.Pipeliner)
		if !ok {
			t.Skip("not a Pipeliner")
		}
		// Writes chained on one versioned counter (the hot-balance shape the
		// DynamoDB adapter combines into one call), each with its own extra;
		// the third's extra fails, so it fails alone and its extra and
		// change are absent while the others' landed.
		bal := f.key("balance")
		require.NoError(t, f.write(store.Add(bal, 100, false, store.Always)))
		taken := f.otherKey("audit-2")
		require.NoError(t, f.write(put(taken, "taken", store.Always)))
		waits := make([]func() error, 4)
		xs := make([]*store.Extras, 4)
		for i := range waits {
			var ctx context.Context
			ctx, xs[i] = store.WithExtras(f.ctx, put(f.otherKey("audit-"+string(rune('0'+i))), "entry", store.IfAbsent))
			w, err := p.Submit(ctx, store.Add(bal, -10, true, store.IfVersion(int64(1+i))),
				put(f.key("order-"+string(rune('0'+i))), "o", store.IfAbsent))
			require.NoError(t, err)
			waits[i] = w
		}
		errs := make([]error, 4)
		for i, w := range waits {
			errs[i] = w()
		}
		require.NoError(t, errs[0])
		require.NoError(t, errs[1])
		require.ErrorIs(t, errs[2], store.ErrExtraFailed, "the write whose extra fails fails")
		_, ok = store.IsConditionFailed(errs[3])
		require.True(t, ok, "the write built on it fails its version: %v", errs[3])
		for i, want := range []bool{true, true, false, false} {
			assert.Equal(t, want, xs[i].Committed(), "write %d", i)
			_, err := f.get(f.key("order-" + string(rune('0'+i))))
			assert.Equal(t, want, err == nil, "write %d's change", i)
		}
		for _, i := range []int{0, 1} {
			got, err := f.get(f.otherKey("audit-" + string(rune('0'+i))))
			require.NoError(t, err)
			assert.Equal(t, []byte("entry"), got.Data)
		}
		got, err := f.get(taken)
		require.NoError(t, err)
		assert.Equal(t, []byte("taken"), got.Data)
		_, err = f.get(f.otherKey("audit-3"))
		assert.ErrorIs(t, err, store.ErrNotFound)
		got, err = f.get(bal)
		require.NoError(t, err)
		assert.Equal(t, int64(80), got.N)
	})
}

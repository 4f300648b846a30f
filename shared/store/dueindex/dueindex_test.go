package dueindex_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
	"github.com/paygate/paygate/shared/testkit/stores"
)

var idx = dueindex.Index{Table: store.TablePayments, Prefix: "testdue#",
	Legacy: &dueindex.Legacy{Prefix: "testolddue#", TimeLayout: "2006-01-02T15:04:05.000000000Z"}}

func collect(t *testing.T, st store.Store, from, to time.Time, budget int) ([]dueindex.Entry, int) {
	t.Helper()
	var got []dueindex.Entry
	n, err := idx.Visit(context.Background(), st, from, to, budget, func(e dueindex.Entry) error {
		got = append(got, e)
		return nil
	})
	require.NoError(t, err)
	return got, n
}

func TestVisitFindsWhatIsDue(t *testing.T) {
	stores.Each(t, nil, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
		for i := 0; i < 20; i++ {
			require.NoError(t, st.Write(ctx, idx.Put("acct_1", fmt.Sprintf("rec_%02d", i), t0.Add(time.Duration(i)*time.Minute))))
		}
		got, _ := collect(t, st, time.Time{}, t0.Add(9*time.Minute), 1000)
		assert.Len(t, got, 10, "due by t0+9m: ten entries, across shards")
		for _, e := range got {
			assert.Equal(t, "acct_1", e.Account)
			assert.False(t, e.Due.After(t0.Add(9*time.Minute)))
		}
		got, _ = collect(t, st, t0.Add(5*time.Minute), t0.Add(9*time.Minute), 1000)
		assert.Len(t, got, 5, "a range [from, to]")
		_, n := collect(t, st, time.Time{}, t0.Add(time.Hour), 7)
		assert.Equal(t, 7, n, "bounded by the budget")

		// Move and Delete keep it in step.
		require.NoError(t, st.Write(ctx, idx.Move("acct_1", "rec_00", t0, t0.Add(time.Hour))...))
		require.NoError(t, st.Write(ctx, idx.Delete("acct_1", "rec_01", t0.Add(time.Minute))))
		got, _ = collect(t, st, time.Time{}, t0.Add(2*time.Minute), 1000)
		require.Len(t, got, 1)
		assert.Equal(t, "rec_02", got[0].ID)
		assert.Empty(t, idx.Move("a", "b", t0, t0))
		assert.Len(t, idx.Move("a", "b", time.Time{}, t0), 1)
	})
}

func TestVisitReadsEarlierLayoutsAndDropsDebris(t *testing.T) {
	stores.Each(t, nil, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
		shard := dueindex.Shard("old_1")
		// The dashed layout under the old prefix, and the compact layout
		// with the account in the data (what the open indexes wrote).
		old := store.Key{Table: store.TablePayments, PK: fmt.Sprintf("testolddue#%d", shard), SK: t0.Format("2006-01-02T15:04:05.000000000Z") + "#acct_1#old_1"}
		withData := store.Key{Table: store.TablePayments, PK: idx.PK(dueindex.Shard("old_2")), SK: t0.Format(dueindex.TimeLayout) + "#old_2"}
		debris := store.Key{Table: store.TablePayments, PK: idx.PK(0), SK: "1999-not-a-time#x"}
		idOnly := store.Key{Table: store.TablePayments, PK: idx.PK(1), SK: t0.Format(dueindex.TimeLayout) + "#cs_1"}
		require.NoError(t, st.Write(ctx,
			store.Put(store.Item{Key: old, Data: []byte("{}")}, store.Always),
			store.Put(store.Item{Key: withData, Data: []byte(`{"account_id":"acct_2","order_id":"old_2"}`)}, store.Always),
			store.Put(store.Item{Key: debris, Data: []byte("{}")}, store.Always),
			store.Put(store.Item{Key: idOnly, Data: []byte("{}")}, store.Always),
		))
		notYet, _ := collect(t, st, time.Time{}, t0.Add(-time.Second), 100)
		assert.Empty(t, notYet, "nothing due before t0, in either layout")
		got, _ := collect(t, st, time.Time{}, t0, 100)
		byID := map[string]dueindex.Entry{}
		for _, e := range got {
			byID[e.ID] = e
		}
		require.Len(t, byID, 3)
		assert.Equal(t, old, byID["old_1"].Key, "the key as stored, to delete")
		assert.Equal(t, "acct_2", byID["old_2"].Account)
		assert.Equal(t, "", byID["cs_1"].Account, "a record keyed by its id alone had no account in its entry")
		assert.True(t, byID["old_1"].Due.Equal(t0))
		_, err := st.Get(ctx, debris)
		assert.ErrorIs(t, err, store.ErrNotFound, "an entry naming no record is removed")
	})
}

func TestShardsSpread(t *testing.T) {
	seen := map[int]bool{}
	for i := 0; i < 200; i++ {
		s := dueindex.Shard(fmt.Sprintf("id_%d", i))
		assert.True(t, s >= 0 && s < dueindex.Shards)
		seen[s] = true
	}
	assert.Len(t, seen, dueindex.Shards)
}

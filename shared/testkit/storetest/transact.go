package storetest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/store"
)

func runTransactions(t *testing.T, newStore NewStore) {
	t.Run("AllApplied", func(t *testing.T) {
		f := setup(t, newStore)
		a, b, c, d := f.key("a"), f.otherKey("b"), f.key("c"), f.key("d")
		require.NoError(t, f.write(store.Put(store.Item{Key: c, Data: []byte("c")}, store.Always)))
		require.NoError(t, f.write(store.Put(store.Item{Key: d, Data: []byte("d")}, store.Always)))

		require.NoError(t, f.write(
			store.Put(store.Item{Key: a, Data: []byte("a")}, store.IfAbsent),
			store.Add(b, 10, true, store.Always),
			store.Delete(c, store.IfVersion(1)),
			store.Check(d, store.IfVersion(1)),
		))
		got, err := f.get(a)
		require.NoError(t, err)
		assert.Equal(t, []byte("a"), got.Data)
		got, err = f.get(b)
		require.NoError(t, err)
		assert.Equal(t, int64(10), got.N)
		_, err = f.get(c)
		require.ErrorIs(t, err, store.ErrNotFound)
		got, err = f.get(d)
		require.NoError(t, err)
		assert.Equal(t, int64(1), got.Version, "a check writes nothing")
	})

	t.Run("AllOrNothing", func(t *testing.T) {
		f := setup(t, newStore)
		a, b, c := f.key("a"), f.otherKey("b"), f.key("c")
		require.NoError(t, f.write(store.Add(b, 3, false, store.Always)))
		require.NoError(t, f.write(store.Put(store.Item{Key: c, Data: []byte("c1")}, store.Always)))
		require.NoError(t, f.write(store.Put(store.Item{Key: c, Data: []byte("c2")}, store.Always)))

		err := f.write(
			store.Put(store.Item{Key: a, Data: []byte("a")}, store.IfAbsent),
			store.Add(b, 1, true, store.Always),
			store.Put(store.Item{Key: c, Data: []byte("c3")}, store.IfVersion(1)),
		)
		cf, ok := store.IsConditionFailed(err)
		require.True(t, ok, "want a condition failure, got %v", err)
		assert.Equal(t, 2, cf.Index)
		require.NotNil(t, cf.Current)
		assert.Equal(t, int64(2), cf.Current.Version)
		assert.Equal(t, []byte("c2"), cf.Current.Data)

		_, err = f.get(a)
		require.ErrorIs(t, err, store.ErrNotFound, "op 0 must not apply")
		got, err := f.get(b)
		require.NoError(t, err)
		assert.Equal(t, int64(3), got.N, "op 1 must not apply")
		assert.Equal(t, int64(1), got.Version)
		got, err = f.get(c)
		require.NoError(t, err)
		assert.Equal(t, []byte("c2"), got.Data)
		assert.Equal(t, int64(2), got.Version)
	})

	t.Run("NonNegativeInTransaction", func(t *testing.T) {
		f := setup(t, newStore)
		bal, order := f.key("balance"), f.otherKey("order")
		require.NoError(t, f.write(store.Add(bal, 100, false, store.Always)))

		err := f.write(
			store.Put(store.Item{Key: order, Data: []byte("o")}, store.IfAbsent),
			store.Add(bal, -101, true, store.Always),
		)
		cf, ok := store.IsConditionFailed(err)
		require.True(t, ok, "want a condition failure, got %v", err)
		assert.Equal(t, 1, cf.Index)
		require.NotNil(t, cf.Current)
		assert.Equal(t, int64(100), cf.Current.N)
		_, err = f.get(order)
		require.ErrorIs(t, err, store.ErrNotFound)

		require.NoError(t, f.write(
			store.Put(store.Item{Key: order, Data: []byte("o")}, store.IfAbsent),
			store.Add(bal, -100, true, store.Always),
		))
		got, err := f.get(bal)
		require.NoError(t, err)
		assert.Equal(t, int64(0), got.N)
	})

	t.Run("ShapeErrors", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("k")
		many := make([]store.Op, store.MaxTransactOps+1)
		for i := range many {
			many[i] = store.Put(store.Item{Key: f.key(fmt.Sprintf("k%03d", i))}, store.Always)
		}
		cases := map[string][]store.Op{
			"no ops":        nil,
			"same key":      {store.Put(store.Item{Key: k}, store.Always), store.Add(k, 1, false, store.Always)},
			"too many":      many,
			"check alone":   {store.Check(k, store.IfExists)},
			"blind check":   {store.Put(store.Item{Key: f.key("x")}, store.Always), store.Check(k, store.Always)},
			"empty sk":      {store.Put(store.Item{Key: store.Key{Table: store.TableAccounts, PK: f.pk}}, store.Always)},
			"unknown table": {store.Put(store.Item{Key: f.key("x")}, store.Always), store.Put(store.Item{Key: store.Key{Table: "nope", PK: f.pk, SK: "x"}}, store.Always)},
		}
		for name, ops := range cases {
			require.ErrorIs(t, f.write(ops...), store.ErrInvalid, name)
		}
		// Exactly the limit is fine, and nothing above was written.
		_, err := f.get(f.key("x"))
		require.ErrorIs(t, err, store.ErrNotFound)
		require.NoError(t, f.write(many[:store.MaxTransactOps]...))
		page, err := f.query(store.Query{Prefix: "k", Limit: store.MaxQueryLimit})
		require.NoError(t, err)
		assert.Len(t, page.Items, store.MaxTransactOps)
	})
}

package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/store"
)

func runBasics(t *testing.T, newStore NewStore) {
	t.Run("GetMissing", func(t *testing.T) {
		f := setup(t, newStore)
		_, err := f.get(f.key("nothing"))
		require.ErrorIs(t, err, store.ErrNotFound)
	})

	t.Run("PutGetRoundtrip", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("item")
		exp := seconds(f.clock.Now().Add(time.Hour))
		require.NoError(t, f.write(store.Put(store.Item{Key: k, Data: []byte(`{"a":1}`), N: -42, ExpiresAt: exp}, store.Always)))

		got, err := f.get(k)
		require.NoError(t, err)
		assert.Equal(t, k, got.Key)
		assert.Equal(t, []byte(`{"a":1}`), got.Data)
		assert.Equal(t, int64(-42), got.N)
		assert.Equal(t, int64(1), got.Version)
		assert.True(t, exp.Equal(got.ExpiresAt), "expiry %v, want %v", got.ExpiresAt, exp)

		// A put over it replaces the whole item and continues the version.
		require.NoError(t, f.write(store.Put(store.Item{Key: k, Data: []byte(`{}`)}, store.Always)))
		got, err = f.get(k)
		require.NoError(t, err)
		assert.Equal(t, []byte(`{}`), got.Data)
		assert.Zero(t, got.N)
		assert.Equal(t, int64(2), got.Version)
		assert.True(t, got.ExpiresAt.IsZero())

		// Empty data reads back as nil in every adapter.
		require.NoError(t, f.write(store.Put(store.Item{Key: k, N: 3}, store.IfVersion(2))))
		got, err = f.get(k)
		require.NoError(t, err)
		assert.Nil(t, got.Data)
		assert.Equal(t, int64(3), got.N)
		assert.Equal(t, int64(3), got.Version)
	})

	t.Run("PutIfAbsentTwice", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("once")
		require.NoError(t, f.write(store.Put(store.Item{Key: k, Data: []byte("first"), N: 7}, store.IfAbsent)))
		err := f.write(store.Put(store.Item{Key: k, Data: []byte("second")}, store.IfAbsent))
		cf, ok := store.IsConditionFailed(err)
		require.True(t, ok, "want a condition failure, got %v", err)
		assert.Equal(t, 0, cf.Index)
		require.NotNil(t, cf.Current)
		assert.Equal(t, k, cf.Current.Key)
		assert.Equal(t, []byte("first"), cf.Current.Data)
		assert.Equal(t, int64(7), cf.Current.N)
		assert.Equal(t, int64(1), cf.Current.Version)

		got, err := f.get(k)
		require.NoError(t, err)
		assert.Equal(t, []byte("first"), got.Data)
	})

	t.Run("PutIfVersion", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("versioned")
		require.NoError(t, f.write(store.Put(store.Item{Key: k, Data: []byte("v1")}, store.IfAbsent)))
		require.NoError(t, f.write(store.Put(store.Item{Key: k, Data: []byte("v2")}, store.IfVersion(1))))

		err := f.write(store.Put(store.Item{Key: k, Data: []byte("stale")}, store.IfVersion(1)))
		cf, ok := store.IsConditionFailed(err)
		require.True(t, ok, "want a condition failure, got %v", err)
		require.NotNil(t, cf.Current)
		assert.Equal(t, int64(2), cf.Current.Version)
		assert.Equal(t, []byte("v2"), cf.Current.Data)

		// A version condition on a missing item fails with no current item.
		err = f.write(store.Put(store.Item{Key: f.key("missing")}, store.IfVersion(1)))
		cf, ok = store.IsConditionFailed(err)
		require.True(t, ok, "want a condition failure, got %v", err)
		assert.Nil(t, cf.Current)
	})

	t.Run("IfExistsOnMissing", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("missing")
		for _, op := range []store.Op{
			store.Put(store.Item{Key: k, Data: []byte("x")}, store.IfExists),
			store.Add(k, 1, false, store.IfExists),
			store.Delete(k, store.IfExists),
		} {
			err := f.write(op)
			cf, ok := store.IsConditionFailed(err)
			require.True(t, ok, "op %d: want a condition failure, got %v", op.Kind, err)
			assert.Nil(t, cf.Current)
		}
		_, err := f.get(k)
		require.ErrorIs(t, err, store.ErrNotFound)

		require.NoError(t, f.write(store.Put(store.Item{Key: k, Data: []byte("x")}, store.Always)))
		require.NoError(t, f.write(store.Put(store.Item{Key: k, Data: []byte("y")}, store.IfExists)))
		got, err := f.get(k)
		require.NoError(t, err)
		assert.Equal(t, []byte("y"), got.Data)
	})

	t.Run("DeleteWithCondition", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("doomed")
		require.NoError(t, f.write(store.Put(store.Item{Key: k, Data: []byte("x")}, store.Always)))

		err := f.write(store.Delete(k, store.IfVersion(5)))
		cf, ok := store.IsConditionFailed(err)
		require.True(t, ok, "want a condition failure, got %v", err)
		require.NotNil(t, cf.Current)
		assert.Equal(t, int64(1), cf.Current.Version)
		_, err = f.get(k)
		require.NoError(t, err, "a failed delete must leave the item")

		require.NoError(t, f.write(store.Delete(k, store.IfVersion(1))))
		_, err = f.get(k)
		require.ErrorIs(t, err, store.ErrNotFound)

		// An unconditional delete of a missing item is not an error.
		require.NoError(t, f.write(store.Delete(k, store.Always)))
	})

	t.Run("UnknownTable", func(t *testing.T) {
		f := setup(t, newStore)
		k := store.Key{Table: "no-such-table", PK: f.pk, SK: "x"}
		_, err := f.get(k)
		require.ErrorIs(t, err, store.ErrInvalid)
		require.ErrorIs(t, f.write(store.Put(store.Item{Key: k}, store.Always)), store.ErrInvalid)
		_, err = f.s.Query(f.ctx, store.Query{Table: "no-such-table", PK: f.pk, Limit: 1})
		require.ErrorIs(t, err, store.ErrInvalid)
	})
}

func runAdd(t *testing.T, newStore NewStore) {
	t.Run("CreateAndAdd", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("counter")
		require.NoError(t, f.write(store.Add(k, 5, false, store.Always)))
		got, err := f.get(k)
		require.NoError(t, err)
		assert.Equal(t, int64(5), got.N)
		assert.Equal(t, int64(1), got.Version)
		assert.Nil(t, got.Data)

		require.NoError(t, f.write(store.Add(k, -8, false, store.IfVersion(1))))
		got, err = f.get(k)
		require.NoError(t, err)
		assert.Equal(t, int64(-3), got.N, "without NonNegative a counter may go below zero")
		assert.Equal(t, int64(2), got.Version)
	})

	t.Run("AddKeepsOrSetsData", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("balance")
		exp := seconds(f.clock.Now().Add(time.Hour))
		require.NoError(t, f.write(store.Put(store.Item{Key: k, Data: []byte("body"), N: 10, ExpiresAt: exp}, store.IfAbsent)))

		require.NoError(t, f.write(store.Add(k, 1, false, store.Always)))
		got, err := f.get(k)
		require.NoError(t, err)
		assert.Equal(t, int64(11), got.N)
		assert.Equal(t, []byte("body"), got.Data, "an add without data keeps the body")
		assert.True(t, exp.Equal(got.ExpiresAt), "an add without data keeps the expiry")

		op := store.Add(k, 2, false, store.Always)
		op.Item.Data = []byte("new body")
		require.NoError(t, f.write(op))
		got, err = f.get(k)
		require.NoError(t, err)
		assert.Equal(t, int64(13), got.N)
		assert.Equal(t, []byte("new body"), got.Data)
		assert.True(t, got.ExpiresAt.IsZero(), "an add with data sets the expiry too")
		assert.Equal(t, int64(3), got.Version)
	})

	t.Run("NonNegativeBoundary", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("funds")
		require.NoError(t, f.write(store.Add(k, 5, true, store.Always)))
		require.NoError(t, f.write(store.Add(k, -5, true, store.Always)), "reaching exactly 0 is allowed")

		err := f.write(store.Add(k, -1, true, store.Always))
		cf, ok := store.IsConditionFailed(err)
		require.True(t, ok, "want a condition failure, got %v", err)
		assert.Equal(t, 0, cf.Index)
		require.NotNil(t, cf.Current)
		assert.Equal(t, int64(0), cf.Current.N)
		assert.Equal(t, int64(2), cf.Current.Version)

		got, err := f.get(k)
		require.NoError(t, err)
		assert.Equal(t, int64(0), got.N)
		assert.Equal(t, int64(2), got.Version)
	})

	t.Run("NonNegativeOnAbsent", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("empty")
		err := f.write(store.Add(k, -1, true, store.Always))
		cf, ok := store.IsConditionFailed(err)
		require.True(t, ok, "an absent item counts as 0: want a condition failure, got %v", err)
		assert.Nil(t, cf.Current)
		_, err = f.get(k)
		require.ErrorIs(t, err, store.ErrNotFound)

		require.NoError(t, f.write(store.Add(k, 0, true, store.IfAbsent)))
		got, err := f.get(k)
		require.NoError(t, err)
		assert.Equal(t, int64(0), got.N)
		assert.Equal(t, int64(1), got.Version)
	})
}

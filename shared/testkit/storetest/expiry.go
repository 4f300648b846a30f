package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/store"
)

// runExpiry moves a manual clock past expiries: the backend's own TTL reaper
// (real time) never sees them expire, so the checks in code are what is tested.
func runExpiry(t *testing.T, newStore NewStore) {
	t.Run("ExpiredIsAbsent", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("session")
		exp := seconds(f.clock.Now().Add(time.Hour))
		require.NoError(t, f.write(store.Put(store.Item{Key: k, Data: []byte("old"), N: 9, ExpiresAt: exp}, store.IfAbsent)))
		_, err := f.get(k)
		require.NoError(t, err)

		f.clock.Advance(time.Hour - time.Second)
		_, err = f.get(k)
		require.NoError(t, err, "one second before expiry the item is live")

		f.clock.Advance(time.Second)
		_, err = f.get(k)
		require.ErrorIs(t, err, store.ErrNotFound, "at its expiry the item is gone")

		for _, op := range []store.Op{
			store.Put(store.Item{Key: k}, store.IfExists),
			store.Put(store.Item{Key: k}, store.IfVersion(1)),
			store.Delete(k, store.IfExists),
			store.Add(k, -1, true, store.Always),
		} {
			err := f.write(op)
			cf, ok := store.IsConditionFailed(err)
			require.True(t, ok, "op %d on an expired item: want a condition failure, got %v", op.Kind, err)
			assert.Nil(t, cf.Current, "an expired item is reported absent")
		}

		require.NoError(t, f.write(store.Put(store.Item{Key: k, Data: []byte("new")}, store.IfAbsent)))
		got, err := f.get(k)
		require.NoError(t, err)
		assert.Equal(t, []byte("new"), got.Data)
		assert.True(t, got.ExpiresAt.IsZero())
		assert.Equal(t, int64(2), got.Version, "the version continues across expiry")
	})

	t.Run("AddOverExpiredStartsAgain", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("window")
		exp := seconds(f.clock.Now().Add(time.Minute))
		require.NoError(t, f.write(store.Put(store.Item{Key: k, Data: []byte("w"), N: 50, ExpiresAt: exp}, store.Always)))
		f.clock.Advance(2 * time.Minute)

		require.NoError(t, f.write(store.Add(k, 3, true, store.Always)))
		got, err := f.get(k)
		require.NoError(t, err)
		assert.Equal(t, int64(3), got.N, "an expired counter counts as 0")
		assert.Nil(t, got.Data, "an expired body does not come back")
		assert.True(t, got.ExpiresAt.IsZero())
		assert.Equal(t, int64(2), got.Version)

		// The same inside a transaction, with an IfAbsent condition.
		k2 := f.otherKey("window2")
		require.NoError(t, f.write(store.Put(store.Item{Key: k2, N: 8, ExpiresAt: seconds(f.clock.Now().Add(time.Minute))}, store.Always)))
		f.clock.Advance(2 * time.Minute)
		op := store.Add(k2, 4, false, store.IfAbsent)
		op.Item.Data = []byte("fresh")
		require.NoError(t, f.write(op, store.Add(k, 1, false, store.Always)))
		got, err = f.get(k2)
		require.NoError(t, err)
		assert.Equal(t, int64(4), got.N)
		assert.Equal(t, []byte("fresh"), got.Data)
		got, err = f.get(k)
		require.NoError(t, err)
		assert.Equal(t, int64(4), got.N)
	})

	t.Run("QuerySkipsExpired", func(t *testing.T) {
		f := setup(t, newStore)
		now := f.clock.Now()
		for i := range 6 {
			it := store.Item{Key: f.key(fmt.Sprintf("e#%d", i))}
			if i%2 == 0 {
				it.ExpiresAt = seconds(now.Add(time.Minute))
			}
			require.NoError(t, f.write(store.Put(it, store.Always)))
		}
		page, err := f.query(store.Query{Prefix: "e#", Limit: 10})
		require.NoError(t, err)
		assert.Len(t, page.Items, 6)

		f.clock.Advance(time.Hour)
		var got []string
		cursor := ""
		for range 10 {
			page, err := f.query(store.Query{Prefix: "e#", Limit: 2, Cursor: cursor})
			require.NoError(t, err)
			assert.LessOrEqual(t, len(page.Items), 2)
			got = append(got, sks(page.Items)...)
			if cursor = page.Next; cursor == "" {
				break
			}
		}
		assert.Equal(t, []string{"e#1", "e#3", "e#5"}, got)
	})
}

package storetest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/store"
)

// runGetMany: store.GetMany reads many keys of two tables at once (past one
// batch's MaxBatchGet), with Get's semantics for each: the live items found,
// by key; missing, expired and unstorable keys absent; a key asked twice
// read once.
func runGetMany(t *testing.T, newStore NewStore) {
	t.Run("ManyKeysOfTwoTables", func(t *testing.T) {
		f := setup(t, newStore)
		var keys []store.Key
		want := map[store.Key]string{}
		for i := 0; i < 150; i++ {
			k := f.key(fmt.Sprintf("k%03d", i))
			if i%2 == 1 {
				k = f.otherKey(fmt.Sprintf("k%03d", i))
			}
			keys = append(keys, k)
			switch {
			case i%5 == 0: // never written
			case i%7 == 0: // expires before the read
				require.NoError(t, f.write(store.Put(store.Item{Key: k, Data: []byte("gone"), ExpiresAt: f.clock.Now().Add(time.Second)}, store.Always)))
			default:
				require.NoError(t, f.write(store.Put(store.Item{Key: k, Data: []byte(k.SK)}, store.Always)))
				want[k] = k.SK
			}
		}
		f.clock.Advance(2 * time.Second)
		keys = append(keys, keys[3], keys[4], store.Key{Table: store.TableAccounts, PK: f.pk, SK: strings.Repeat("x", store.MaxSKSize+1)})
		got, err := store.GetMany(f.ctx, f.s, keys)
		require.NoError(t, err)
		require.Len(t, got, len(want))
		for k, data := range want {
			it, ok := got[k]
			if assert.True(t, ok, "%s found", k) {
				assert.Equal(t, data, string(it.Data))
				assert.Equal(t, k, it.Key)
				assert.EqualValues(t, 1, it.Version)
			}
		}
		none, err := store.GetMany(f.ctx, f.s, nil)
		require.NoError(t, err)
		assert.Empty(t, none)
	})
}

package storetest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// runLimits: DynamoDB's size limits hold on every adapter, and breaking one
// is a kinded client error (never a 500), with nothing written.
func runLimits(t *testing.T, newStore NewStore) {
	// fill returns Data that makes the item at k exactly size bytes by
	// store.ItemSize.
	fill := func(k store.Key, size int) []byte {
		it := store.Item{Key: k}
		return bytes.Repeat([]byte("x"), size-store.ItemSize(it))
	}
	tooLarge := func(t *testing.T, err error) {
		t.Helper()
		require.ErrorIs(t, err, store.ErrTooLarge)
		e := apierr.As(err)
		assert.Equal(t, apierr.Invalid, e.Kind, "a client error, not a 5xx")
		assert.Equal(t, "item_too_large", e.CodeOrDefault())
		assert.Less(t, e.Kind.Status(), 500)
	}

	t.Run("ItemAtLimit", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("big")
		data := fill(k, store.MaxItemSize)
		require.NoError(t, f.write(store.Put(store.Item{Key: k, Data: data, N: 1}, store.IfAbsent)))
		got, err := f.get(k)
		require.NoError(t, err)
		assert.Equal(t, len(data), len(got.Data))
	})

	t.Run("ItemOverLimit", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("big")
		over := append(fill(k, store.MaxItemSize), 'x')
		tooLarge(t, f.write(store.Put(store.Item{Key: k, Data: over}, store.Always)))
		tooLarge(t, f.write(store.Add(k, 1, false, store.Always), store.Put(store.Item{Key: f.otherKey("o"), Data: append(fill(f.otherKey("o"), store.MaxItemSize), 'x')}, store.Always)))
		// OpAdd with a body counts it too.
		op := store.Add(k, 1, false, store.Always)
		op.Item.Data = over
		tooLarge(t, f.write(op))
		_, err := f.get(k)
		require.ErrorIs(t, err, store.ErrNotFound, "nothing was written")
		_, err = f.get(f.otherKey("o"))
		require.ErrorIs(t, err, store.ErrNotFound, "nothing of the transaction was written")
	})

	t.Run("OverLimitInTransactionLeavesOthers", func(t *testing.T) {
		f := setup(t, newStore)
		bal, order := f.key("balance"), f.otherKey("order")
		require.NoError(t, f.write(store.Add(bal, 100, false, store.Always)))
		err := f.write(
			store.Add(bal, -10, true, store.Always),
			store.Put(store.Item{Key: order, Data: bytes.Repeat([]byte("o"), 500*1024)}, store.IfAbsent),
		)
		tooLarge(t, err)
		got, err := f.get(bal)
		require.NoError(t, err)
		assert.Equal(t, int64(100), got.N, "the charge did not apply")
		assert.Equal(t, int64(1), got.Version)
	})

	t.Run("TransactionAggregate", func(t *testing.T) {
		f := setup(t, newStore)
		const each = 390 * 1024 // 11 of them pass 4 MB; 10 do not
		ops := make([]store.Op, 11)
		for i := range ops {
			k := f.key(fmt.Sprintf("t%02d", i))
			ops[i] = store.Put(store.Item{Key: k, Data: fill(k, each)}, store.IfAbsent)
		}
		tooLarge(t, f.write(ops...))
		_, err := f.get(f.key("t00"))
		require.ErrorIs(t, err, store.ErrNotFound)
		require.NoError(t, f.write(ops[:10]...))
		got, err := f.get(f.key("t09"))
		require.NoError(t, err)
		assert.Equal(t, int64(1), got.Version)
	})

	t.Run("KeyLimits", func(t *testing.T) {
		f := setup(t, newStore)
		pk := f.pk + strings.Repeat("p", store.MaxPKSize-len(f.pk))
		sk := strings.Repeat("s", store.MaxSKSize)
		k := store.Key{Table: store.TableAccounts, PK: pk, SK: sk}
		require.NoError(t, f.write(store.Put(store.Item{Key: k, Data: []byte("x")}, store.IfAbsent)), "keys at the limit fit")
		_, err := f.get(k)
		require.NoError(t, err)

		longPK := store.Key{Table: store.TableAccounts, PK: pk + "p", SK: "s"}
		longSK := store.Key{Table: store.TableAccounts, PK: f.pk, SK: sk + "s"}
		for _, k := range []store.Key{longPK, longSK} {
			tooLarge(t, f.write(store.Put(store.Item{Key: k, Data: []byte("x")}, store.Always)))
			_, err := f.get(k)
			require.ErrorIs(t, err, store.ErrNotFound, "a key that cannot be written is simply absent")
		}
		page, err := f.query(store.Query{PK: longPK.PK, Limit: 10})
		require.NoError(t, err)
		assert.Empty(t, page.Items)
		assert.Empty(t, page.Next)

		// A cursor no key could produce is malformed, not a backend error.
		_, err = f.query(store.Query{Limit: 10, Cursor: store.EncodeCursor(sk + "s")})
		require.ErrorIs(t, err, store.ErrInvalid)
	})
}

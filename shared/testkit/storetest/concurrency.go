package storetest

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// parallel runs fn on n goroutines and waits.
func parallel(n int, fn func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { fn(i) })
	}
	wg.Wait()
}

func runConcurrency(t *testing.T, newStore NewStore) {
	t.Run("AtomicAdd", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("hits")
		var failures atomic.Int64
		parallel(50, func(int) {
			for range 20 {
				if err := f.write(store.Add(k, 1, false, store.Always)); err != nil {
					failures.Add(1)
				}
			}
		})
		require.Zero(t, failures.Load())
		got, err := f.get(k)
		require.NoError(t, err)
		assert.Equal(t, int64(1000), got.N)
		assert.Equal(t, int64(1000), got.Version)
	})

	t.Run("ReadModifyWrite", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("doc")
		require.NoError(t, f.write(store.Put(store.Item{Key: k, Data: []byte("0")}, store.IfAbsent)))
		errs := make(chan error, 50)
		parallel(50, func(int) {
			for {
				cur, err := f.get(k)
				if err != nil {
					errs <- err
					return
				}
				n, _ := strconv.Atoi(string(cur.Data))
				next := store.Item{Key: k, Data: []byte(strconv.Itoa(n + 1))}
				err = f.write(store.Put(next, store.IfVersion(cur.Version)))
				if _, lost := store.IsConditionFailed(err); lost {
					continue
				}
				errs <- err
				return
			}
		})
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		got, err := f.get(k)
		require.NoError(t, err)
		assert.Equal(t, "50", string(got.Data), "no lost update")
		assert.Equal(t, int64(51), got.Version)
	})

	t.Run("NonNegativeDecrements", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("stock")
		require.NoError(t, f.write(store.Add(k, 60, false, store.Always)))
		var ok, refused, other atomic.Int64
		parallel(100, func(int) {
			err := f.write(store.Add(k, -1, true, store.Always))
			switch _, cf := store.IsConditionFailed(err); {
			case err == nil:
				ok.Add(1)
			case cf:
				refused.Add(1)
			default:
				other.Add(1)
			}
		})
		assert.Equal(t, int64(60), ok.Load())
		assert.Equal(t, int64(40), refused.Load())
		assert.Zero(t, other.Load())
		got, err := f.get(k)
		require.NoError(t, err)
		assert.Equal(t, int64(0), got.N)
	})

	t.Run("PutIfAbsentRace", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("claim")
		var wins, losses atomic.Int64
		var winner atomic.Int64
		parallel(20, func(i int) {
			err := f.write(store.Put(store.Item{Key: k, Data: []byte(strconv.Itoa(i))}, store.IfAbsent))
			if err == nil {
				wins.Add(1)
				winner.Store(int64(i))
			} else if cf, ok := store.IsConditionFailed(err); ok && cf.Current != nil {
				losses.Add(1)
			}
		})
		assert.Equal(t, int64(1), wins.Load())
		assert.Equal(t, int64(19), losses.Load())
		got, err := f.get(k)
		require.NoError(t, err)
		assert.Equal(t, strconv.Itoa(int(winner.Load())), string(got.Data))
	})

	// Transactions on one hot item either commit or fail as a Conflict after
	// the adapter's retries; never half-applied.
	t.Run("ContendedTransactions", func(t *testing.T) {
		f := setup(t, newStore)
		counter := f.otherKey("total")
		var committed, conflicts atomic.Int64
		errs := make(chan error, 20)
		parallel(20, func(i int) {
			err := f.write(
				store.Add(counter, 1, false, store.Always),
				store.Put(store.Item{Key: f.key(fmt.Sprintf("tx#%02d", i))}, store.IfAbsent),
			)
			switch {
			case err == nil:
				committed.Add(1)
			case apierr.Is(err, apierr.Conflict):
				conflicts.Add(1)
			default:
				errs <- err
			}
		})
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		t.Logf("%d committed, %d conflicts after retries", committed.Load(), conflicts.Load())
		assert.Equal(t, int64(20), committed.Load()+conflicts.Load())
		got, err := f.get(counter)
		if committed.Load() == 0 {
			require.True(t, errors.Is(err, store.ErrNotFound))
			return
		}
		require.NoError(t, err)
		assert.Equal(t, committed.Load(), got.N)
		page, err := f.query(store.Query{Prefix: "tx#", Limit: 100})
		require.NoError(t, err)
		assert.Len(t, page.Items, int(committed.Load()))
	})
}

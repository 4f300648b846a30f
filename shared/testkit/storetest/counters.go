package storetest

import (
	"errors"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// bounded is an add whose result must stay within [-max, max].
func bounded(k store.Key, delta, max int64, nonNegative bool, cond store.Cond) store.Op {
	op := store.Add(k, delta, nonNegative, cond)
	op.Max = max
	return op
}

// outOfRange asserts the port's error for an add past its bound: the same
// kinded 400 on every adapter.
func outOfRange(t *testing.T, err error) {
	t.Helper()
	require.ErrorIs(t, err, store.ErrOutOfRange)
	_, isCF := store.IsConditionFailed(err)
	assert.False(t, isCF, "a bound is not a failed condition")
	e := apierr.As(err)
	assert.Equal(t, apierr.Invalid, e.Kind, "a client error, not a 5xx")
	assert.Equal(t, "total_out_of_range", e.CodeOrDefault())
	assert.Equal(t, "the amount would take a stored total past its maximum", e.Message)
}

// runCounters: an add never wraps past int64 nor passes its Max, on every
// adapter, and says so with ErrOutOfRange after the caller's own conditions.
func runCounters(t *testing.T, newStore NewStore) {
	// unchanged asserts k still holds n at version v.
	unchanged := func(f *fixture, k store.Key, n, v int64) {
		f.t.Helper()
		got, err := f.get(k)
		require.NoError(f.t, err)
		assert.Equal(f.t, n, got.N)
		assert.Equal(f.t, v, got.Version, "nothing was written")
	}

	t.Run("Int64Edges", func(t *testing.T) {
		f := setup(t, newStore)
		hi, lo := f.key("hi"), f.key("lo")
		require.NoError(t, f.write(store.Put(store.Item{Key: hi, N: math.MaxInt64 - 1}, store.IfAbsent)))
		require.NoError(t, f.write(store.Add(hi, 1, false, store.Always)), "reaching MaxInt64 exactly is allowed")
		outOfRange(t, f.write(store.Add(hi, 1, false, store.Always)))
		outOfRange(t, f.write(store.Add(hi, math.MaxInt64, false, store.Always)))
		unchanged(f, hi, math.MaxInt64, 2)
		require.NoError(t, f.write(store.Add(hi, -1, false, store.Always)), "a counter at the edge moves back")
		unchanged(f, hi, math.MaxInt64-1, 3)

		require.NoError(t, f.write(store.Put(store.Item{Key: lo, N: math.MinInt64 + 1}, store.IfAbsent)))
		require.NoError(t, f.write(store.Add(lo, -1, false, store.Always)))
		outOfRange(t, f.write(store.Add(lo, -1, false, store.Always)))
		unchanged(f, lo, math.MinInt64, 2)

		// From absent (0), the whole int64 range but MinInt64 is one add away.
		require.NoError(t, f.write(store.Add(f.key("max"), math.MaxInt64, false, store.Always)))
		require.NoError(t, f.write(store.Add(f.key("min"), -math.MaxInt64, false, store.Always)))
		got, err := f.get(f.key("min"))
		require.NoError(t, err)
		assert.Equal(t, int64(-math.MaxInt64), got.N)
		// A delta of MinInt64 cannot be negated: a misuse of the port.
		require.ErrorIs(t, f.write(store.Add(f.key("x"), math.MinInt64, false, store.Always)), store.ErrInvalid)
		require.ErrorIs(t, f.write(bounded(f.key("x"), 1, -1, false, store.Always)), store.ErrInvalid)
		_, err = f.get(f.key("x"))
		require.ErrorIs(t, err, store.ErrNotFound)
	})

	t.Run("MaxBound", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("balance")
		outOfRange(t, f.write(bounded(k, 101, 100, false, store.Always)))
		_, err := f.get(k)
		require.ErrorIs(t, err, store.ErrNotFound, "an absent counter (0) plus too much creates nothing")

		require.NoError(t, f.write(bounded(k, 90, 100, false, store.Always)))
		require.NoError(t, f.write(bounded(k, 10, 100, false, store.Always)), "reaching Max exactly is allowed")
		outOfRange(t, f.write(bounded(k, 1, 100, false, store.Always)))
		unchanged(f, k, 100, 2)

		// Downwards without NonNegative the bound is -Max.
		require.NoError(t, f.write(bounded(k, -200, 100, false, store.Always)))
		outOfRange(t, f.write(bounded(k, -1, 100, false, store.Always)))
		unchanged(f, k, -100, 3)

		// Only the direction the add moves is bounded: a counter already past
		// Max (written by a put, or under a larger bound) may come back.
		require.NoError(t, f.write(store.Put(store.Item{Key: k, N: 500}, store.IfVersion(3))))
		require.NoError(t, f.write(bounded(k, -1, 100, true, store.Always)))
		outOfRange(t, f.write(bounded(k, 1, 100, true, store.Always)))
		unchanged(f, k, 499, 5)
		require.NoError(t, f.write(bounded(k, 0, 100, false, store.Always)), "a zero delta moves nothing")
	})

	t.Run("ConditionsComeFirst", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("c")
		require.NoError(t, f.write(store.Put(store.Item{Key: k, N: 100}, store.IfAbsent)))
		// A stale version with an add past the bound: the condition is reported.
		cf, ok := store.IsConditionFailed(f.write(bounded(k, 1, 100, false, store.IfVersion(7))))
		require.True(t, ok)
		assert.Equal(t, 0, cf.Index)
		require.NotNil(t, cf.Current)
		assert.Equal(t, int64(100), cf.Current.N)
		// NonNegative before the bound.
		_, ok = store.IsConditionFailed(f.write(bounded(k, -201, 100, true, store.Always)))
		require.True(t, ok, "NonNegative is a failed condition")
		// In a transaction, the first op that fails decides, in op order.
		other := f.otherKey("o")
		_, ok = store.IsConditionFailed(f.write(store.Put(store.Item{Key: k}, store.IfAbsent), bounded(other, 2, 1, false, store.Always)))
		require.True(t, ok, "op 0's condition comes before op 1's bound")
		outOfRange(t, f.write(bounded(other, 2, 1, false, store.Always), store.Put(store.Item{Key: k}, store.IfAbsent)))
		outOfRange(t, f.write(store.Put(store.Item{Key: f.key("new")}, store.IfAbsent), bounded(k, 1, 100, false, store.IfVersion(1))))
		unchanged(f, k, 100, 1)
		_, err := f.get(f.key("new"))
		require.ErrorIs(t, err, store.ErrNotFound, "nothing of the transaction was written")
		_, err = f.get(other)
		require.ErrorIs(t, err, store.ErrNotFound)
	})

	t.Run("ExpiredCounterStartsAtZero", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("exp")
		exp := seconds(f.clock.Now().Add(time.Minute))
		require.NoError(t, f.write(store.Put(store.Item{Key: k, N: math.MaxInt64, ExpiresAt: exp}, store.IfAbsent)))
		outOfRange(t, f.write(store.Add(k, 1, false, store.Always)))
		f.clock.Advance(time.Minute)
		// Expired: the add starts from 0, so neither overflow nor the bound
		// trips on the old value, but the bound still holds for the delta.
		outOfRange(t, f.write(bounded(k, 11, 10, false, store.Always)))
		_, err := f.get(k)
		require.ErrorIs(t, err, store.ErrNotFound)
		require.NoError(t, f.write(bounded(k, 10, 10, false, store.Always)))
		got, err := f.get(k)
		require.NoError(t, err)
		assert.Equal(t, int64(10), got.N)
		assert.Equal(t, int64(2), got.Version, "the version continues across expiry")
	})

	t.Run("ConcurrentAddsStopAtMax", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("hot")
		const workers, each, max = 40, 30, 1000 // 33 adds fit, 7 must be refused
		var ok, refused, other atomic.Int64
		parallel(workers, func(int) {
			err := f.write(bounded(k, each, max, false, store.Always))
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, store.ErrOutOfRange) && apierr.KindOf(err) == apierr.Invalid:
				refused.Add(1)
			default:
				other.Add(1)
				t.Errorf("unexpected error: %v", err)
			}
		})
		require.Zero(t, other.Load())
		assert.Equal(t, int64(max/each), ok.Load())
		assert.Equal(t, int64(workers-max/each), refused.Load())
		got, err := f.get(k)
		require.NoError(t, err)
		assert.Equal(t, int64(max/each*each), got.N, "never past Max, however the adds interleave")
		assert.Equal(t, int64(max/each), got.Version)
	})
}

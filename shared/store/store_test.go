package store_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

func TestExpired(t *testing.T) {
	now := time.Unix(1_000, 0)
	assert.False(t, store.Item{}.Expired(now), "zero expiry never expires")
	assert.False(t, store.Item{ExpiresAt: now.Add(time.Nanosecond)}.Expired(now))
	assert.True(t, store.Item{ExpiresAt: now}.Expired(now), "expired at the instant itself")
	assert.True(t, store.Item{ExpiresAt: now.Add(-time.Second)}.Expired(now))
}

func TestCursorRoundtrip(t *testing.T) {
	for _, sk := range []string{"a", "order#2026-01-01T00:00:00Z#ord_1", "ü/+=?&", "\x00\xff"} {
		c := store.EncodeCursor(sk)
		assert.NotContains(t, c, "=", "cursors are unpadded")
		got, err := store.DecodeCursor(c)
		require.NoError(t, err)
		assert.Equal(t, sk, got)
	}
	for _, bad := range []string{"", "!!!", "a b", "QQ=="} {
		_, err := store.DecodeCursor(bad)
		require.ErrorIs(t, err, store.ErrInvalid, "%q", bad)
	}
}

func TestQueryValidate(t *testing.T) {
	ok := store.Query{Table: "t", PK: "p", Limit: 1}
	require.NoError(t, ok.Validate())
	max := ok
	max.Limit = store.MaxQueryLimit
	require.NoError(t, max.Validate())
	rng := ok
	rng.From, rng.To = "a", "b"
	require.NoError(t, rng.Validate())

	bad := map[string]func(q *store.Query){
		"no table":        func(q *store.Query) { q.Table = "" },
		"no pk":           func(q *store.Query) { q.PK = "" },
		"zero limit":      func(q *store.Query) { q.Limit = 0 },
		"limit too big":   func(q *store.Query) { q.Limit = store.MaxQueryLimit + 1 },
		"prefix and from": func(q *store.Query) { q.Prefix, q.From = "a", "a" },
		"prefix and to":   func(q *store.Query) { q.Prefix, q.To = "a", "b" },
	}
	for name, mutate := range bad {
		q := ok
		mutate(&q)
		require.ErrorIs(t, q.Validate(), store.ErrInvalid, name)
	}
}

func TestValidateOps(t *testing.T) {
	k := func(sk string) store.Key { return store.Key{Table: "t", PK: "p", SK: sk} }
	require.NoError(t, store.ValidateOps([]store.Op{store.Put(store.Item{Key: k("a")}, store.Always)}))
	require.NoError(t, store.ValidateOps([]store.Op{
		store.Put(store.Item{Key: k("a")}, store.IfAbsent),
		store.Check(k("b"), store.IfVersion(3)),
		store.Add(k("c"), -1, true, store.Always),
		store.Delete(store.Key{Table: "u", PK: "p", SK: "a"}, store.IfExists), // same PK/SK, other table
	}))

	limit := make([]store.Op, store.MaxTransactOps)
	for i := range limit {
		limit[i] = store.Delete(k(fmt.Sprint(i)), store.Always)
	}
	require.NoError(t, store.ValidateOps(limit))

	bad := map[string][]store.Op{
		"none":        nil,
		"too many":    append(limit, store.Delete(k("extra"), store.Always)),
		"same key":    {store.Put(store.Item{Key: k("a")}, store.Always), store.Delete(k("a"), store.Always)},
		"check alone": {store.Check(k("a"), store.IfExists)},
		"blind check": {store.Put(store.Item{Key: k("a")}, store.Always), store.Check(k("b"), store.Always)},
		"no kind":     {{Item: store.Item{Key: k("a")}}},
		"no table":    {store.Put(store.Item{Key: store.Key{PK: "p", SK: "s"}}, store.Always)},
		"no pk":       {store.Put(store.Item{Key: store.Key{Table: "t", SK: "s"}}, store.Always)},
		"no sk":       {store.Put(store.Item{Key: store.Key{Table: "t", PK: "p"}}, store.Always)},
	}
	for name, ops := range bad {
		require.ErrorIs(t, store.ValidateOps(ops), store.ErrInvalid, name)
	}
}

func TestOpConstructors(t *testing.T) {
	k := store.Key{Table: "t", PK: "p", SK: "s"}
	assert.Equal(t, store.Cond{Kind: store.CondVersion, Version: 4}, store.IfVersion(4))
	add := store.Add(k, -5, true, store.IfExists)
	assert.Equal(t, store.OpAdd, add.Kind)
	assert.Equal(t, k, add.Item.Key)
	assert.Equal(t, int64(-5), add.Delta)
	assert.True(t, add.NonNegative)
	assert.Equal(t, store.IfExists, add.Cond)
	assert.Equal(t, store.OpDelete, store.Delete(k, store.Always).Kind)
	assert.Equal(t, store.OpCheck, store.Check(k, store.IfAbsent).Kind)
	assert.Equal(t, "t/p/s", k.String())
}

func TestIsConditionFailed(t *testing.T) {
	cur := &store.Item{Version: 2}
	err := fmt.Errorf("create order: %w", &store.ConditionFailedError{Index: 1, Current: cur})
	cf, ok := store.IsConditionFailed(err)
	require.True(t, ok)
	assert.Equal(t, 1, cf.Index)
	assert.Same(t, cur, cf.Current)
	assert.True(t, strings.Contains(err.Error(), "op 1"))

	_, ok = store.IsConditionFailed(store.ErrNotFound)
	assert.False(t, ok)
	_, ok = store.IsConditionFailed(nil)
	assert.False(t, ok)
}

func TestAllTablesAreDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, tbl := range store.AllTables {
		assert.False(t, seen[tbl], tbl)
		seen[tbl] = true
	}
	assert.Len(t, seen, 8)
}

func TestAddLimit(t *testing.T) {
	k := store.Key{Table: "t", PK: "p", SK: "s"}
	for _, tc := range []struct {
		delta, max, limit int64
		upper, ok         bool
	}{
		{1, 0, math.MaxInt64 - 1, true, true},
		{math.MaxInt64, 0, 0, true, true},
		{-1, 0, math.MinInt64 + 1, false, true},
		{-math.MaxInt64, 0, -1, false, true},
		{30, 100, 70, true, true},
		{101, 100, -1, true, true},
		{-30, 100, -70, false, true},
		{0, 100, 0, false, false},
	} {
		op := store.Add(k, tc.delta, false, store.Always)
		op.Max = tc.max
		limit, upper, ok := op.AddLimit()
		assert.Equal(t, []any{tc.limit, tc.upper, tc.ok}, []any{limit, upper, ok}, "delta %d max %d", tc.delta, tc.max)
	}
}

func TestJudge(t *testing.T) {
	k := store.Key{Table: "t", PK: "p", SK: "s"}
	at := func(n, v int64) *store.Item { return &store.Item{Key: k, N: n, Version: v} }
	add := func(delta, max int64, nonNeg bool, cond store.Cond) store.Op {
		op := store.Add(k, delta, nonNeg, cond)
		op.Max = max
		return op
	}
	for name, tc := range map[string]struct {
		op   store.Op
		live *store.Item
		want store.Verdict
	}{
		"put absent":             {store.Put(store.Item{Key: k}, store.IfAbsent), nil, store.Holds},
		"put exists":             {store.Put(store.Item{Key: k}, store.IfAbsent), at(0, 1), store.CondFails},
		"version":                {store.Delete(k, store.IfVersion(2)), at(0, 1), store.CondFails},
		"exists on absent":       {add(1, 0, false, store.IfExists), nil, store.CondFails},
		"overflow":               {add(1, 0, false, store.Always), at(math.MaxInt64, 1), store.OutOfBound},
		"underflow":              {add(-1, 0, false, store.Always), at(math.MinInt64, 1), store.OutOfBound},
		"to the edge":            {add(1, 0, false, store.Always), at(math.MaxInt64-1, 1), store.Holds},
		"max":                    {add(5, 10, false, store.Always), at(6, 1), store.OutOfBound},
		"max from absent":        {add(11, 10, false, store.Always), nil, store.OutOfBound},
		"past max moving back":   {add(-1, 10, false, store.Always), at(50, 1), store.Holds},
		"non-negative first":     {add(-11, 10, true, store.Always), at(0, 1), store.CondFails},
		"condition first":        {add(1, 0, false, store.IfVersion(9)), at(math.MaxInt64, 1), store.CondFails},
		"non-negative reach 0":   {add(-5, 0, true, store.Always), at(5, 1), store.Holds},
		"non-negative on absent": {add(-1, 0, true, store.Always), nil, store.CondFails},
	} {
		assert.Equal(t, tc.want, store.Judge(tc.op, tc.live), name)
	}
}

func TestKeyRules(t *testing.T) {
	ok := func(pk, sk string) bool { return store.KeyFits(store.Key{PK: pk, SK: sk}) }
	assert.True(t, ok("p", "\u202e\x01\ufffd"))
	assert.False(t, ok("p\x00", "s"))
	assert.False(t, ok("p", "s\x00"))
	assert.False(t, ok("\xff", "s"))
	assert.False(t, ok("p", "\xed\xa0\x80"))
	assert.False(t, ok(strings.Repeat("p", store.MaxPKSize+1), "s"))
	assert.False(t, ok("p", strings.Repeat("s", store.MaxSKSize+1)))
	k := store.Key{Table: "t", PK: "p", SK: "s\x00"}
	err := store.ValidateOps([]store.Op{store.Put(store.Item{Key: k}, store.Always)})
	require.ErrorIs(t, err, store.ErrKeyInvalid)
	assert.Equal(t, 400, apierr.As(err).Kind.Status())
	require.ErrorIs(t, store.Query{Table: "t", PK: "p", Limit: 1, Prefix: "\xff"}.Validate(), store.ErrInvalid)

	misuse := store.Add(store.Key{Table: "t", PK: "p", SK: "s"}, math.MinInt64, false, store.Always)
	require.ErrorIs(t, store.ValidateOps([]store.Op{misuse}), store.ErrInvalid)
	misuse.Delta, misuse.Max = 1, -1
	require.ErrorIs(t, store.ValidateOps([]store.Op{misuse}), store.ErrInvalid)

	err = store.OutOfRange(2, k)
	require.ErrorIs(t, err, store.ErrOutOfRange)
	assert.Equal(t, "total_out_of_range", apierr.As(err).CodeOrDefault())
	assert.Equal(t, 400, apierr.As(err).Kind.Status())
}

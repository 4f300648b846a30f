package money

import (
	"errors"
	"math"
	"testing"

	"github.com/paygate/paygate/shared/platform/apierr"
)

func TestAdd(t *testing.T) {
	for _, tc := range []struct {
		a, b, want int64
		ok         bool
	}{
		{1, 2, 3, true},
		{-5, 3, -2, true},
		{MaxMinor, 0, MaxMinor, true},
		{MaxMinor - 1, 1, MaxMinor, true},
		{MaxMinor, 1, 0, false},
		{-MaxMinor, -1, 0, false},
		{-MaxMinor, 0, -MaxMinor, true},
		{math.MaxInt64, 1, 0, false},
		{math.MinInt64, -1, 0, false},
		{math.MaxInt64, math.MinInt64, -1, true}, // no overflow: only the result is bounded
	} {
		got, err := Add(tc.a, tc.b)
		checkArith(t, "Add", tc.a, tc.b, got, err, tc.want, tc.ok)
	}
}

func TestMul(t *testing.T) {
	for _, tc := range []struct {
		a, n, want int64
		ok         bool
	}{
		{1999, 3, 5997, true},
		{1999, 0, 0, true},
		{0, math.MaxInt64, 0, true},
		{-250, 4, -1000, true},
		{250, -4, -1000, true},
		{-250, -4, 1000, true},
		{MaxMinor, 1, MaxMinor, true},
		{MaxMinor, 2, 0, false},
		{MaxMinor / 2, 2, MaxMinor, true},
		{MaxMinor/2 + 1, 2, 0, false},
		{math.MaxInt64, 2, 0, false},
		{math.MinInt64, -1, 0, false},
		{math.MinInt64, 1, 0, false},
		{1 << 32, 1 << 32, 0, false}, // overflows int64 to exactly 0 in plain multiplication
	} {
		got, err := Mul(tc.a, tc.n)
		checkArith(t, "Mul", tc.a, tc.n, got, err, tc.want, tc.ok)
	}
}

func checkArith(t *testing.T, op string, a, b, got int64, err error, want int64, ok bool) {
	t.Helper()
	if ok {
		if err != nil || got != want {
			t.Errorf("%s(%d, %d) = %d, %v; want %d", op, a, b, got, err, want)
		}
		return
	}
	if !errors.Is(err, ErrRange) || apierr.KindOf(err) != apierr.Invalid {
		t.Errorf("%s(%d, %d) = %d, %v; want ErrRange", op, a, b, got, err)
	}
}

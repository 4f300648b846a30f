package money

import "math/bits"

// Add returns a+b, or an Invalid error wrapping ErrRange when the result is
// beyond ±MaxMinor (which includes int64 overflow). Totals that large are
// never real, so treating them as bad input is safe.
func Add(a, b int64) (int64, error) {
	s := a + b
	// Overflow happened iff a and b share a sign that s does not.
	if (a >= 0) == (b >= 0) && (s >= 0) != (a >= 0) {
		return 0, rangeErr()
	}
	if s > MaxMinor || s < -MaxMinor {
		return 0, rangeErr()
	}
	return s, nil
}

// Mul returns a*n (e.g. unit price times quantity), or an Invalid error
// wrapping ErrRange when the result is beyond ±MaxMinor or overflows int64.
func Mul(a, n int64) (int64, error) {
	hi, lo := bits.Mul64(abs(a), abs(n))
	if hi != 0 || lo > uint64(MaxMinor) {
		return 0, rangeErr()
	}
	// |a*n| <= MaxMinor, so the signed product is exact.
	return a * n, nil
}

func abs(x int64) uint64 {
	if x < 0 {
		return -uint64(x)
	}
	return uint64(x)
}

func rangeErr() error {
	return invalid("", ErrRange, "amount is out of range: the limit is %d minor units either way", MaxMinor)
}

package app

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTuneGC(t *testing.T) {
	prevPercent := debug.SetGCPercent(100)
	prevLimit := debug.SetMemoryLimit(math.MaxInt64)
	defer func() { debug.SetGCPercent(prevPercent); debug.SetMemoryLimit(prevLimit) }()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

	p, l := TuneGC(env(map[string]string{"GOGC": "50"}))
	assert.Equal(t, -1, p, "GOGC set: left as the runtime read it")
	assert.Equal(t, int64(-1), l)
	assert.Equal(t, 100, debug.SetGCPercent(100))

	p, l = TuneGC(env(map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "128"}))
	assert.Equal(t, gcPercent, p)
	assert.Equal(t, int64(64<<20), l, "half of 128 MB")
	assert.Equal(t, gcPercent, debug.SetGCPercent(100))
	assert.Equal(t, int64(64<<20), debug.SetMemoryLimit(math.MaxInt64))

	_, l = TuneGC(env(nil))
	assert.Equal(t, int64(math.MaxInt64), l, "no memory size: no limit")
}

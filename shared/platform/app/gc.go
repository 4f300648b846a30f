package app

import (
	"math"
	"runtime/debug"
	"strconv"
)

// GC tuning. A function's live heap is a few MB (make memory: 10-20 MB of
// RSS in all, the binary included) against a MemorySize of 128 MB or more,
// yet Go's default (GOGC=100) collects each time the heap doubles: every
// few requests on the money path, whose profiles (make bench ARGS=-profile)
// showed the collector's mark workers and assists at 10-20% of a request's
// CPU. gcPercent lets the heap grow to five times the live heap between
// collections instead, and a soft memory limit at half the function's
// memory keeps that growth from ever reaching the sandbox's limit: near it
// the collector runs as often as it must, whatever GOGC says.
const (
	gcPercent       = 400
	memoryLimitPart = 0.5 // of AWS_LAMBDA_FUNCTION_MEMORY_SIZE
)

// TuneGC sets the collector as above, unless GOGC or GOMEMLIMIT is set in
// the environment (then the runtime already read it and it stands). Lambda
// sets AWS_LAMBDA_FUNCTION_MEMORY_SIZE; without it (the local gateway, a
// test) no memory limit is set. It returns what it set, for the log.
func TuneGC(getenv func(string) string) (percent int, limit int64) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return -1, -1
	}
	debug.SetGCPercent(gcPercent)
	limit = math.MaxInt64
	if mb, err := strconv.Atoi(getenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE")); err == nil && mb > 0 {
		limit = int64(float64(mb) * memoryLimitPart * (1 << 20))
		debug.SetMemoryLimit(limit)
	}
	return gcPercent, limit
}

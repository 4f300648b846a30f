package retry

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWindowDoublesUpToMax(t *testing.T) {
	b := Backoff{Base: 2 * time.Millisecond, Max: 256 * time.Millisecond}
	want := []time.Duration{2, 4, 8, 16, 32, 64, 128, 256, 256, 256}
	for n, w := range want {
		assert.Equal(t, w*time.Millisecond, b.Window(n), "retry %d", n)
	}
	assert.Equal(t, 256*time.Millisecond, b.Window(1<<30), "a huge n neither overflows nor passes Max")
	assert.Equal(t, 2*time.Millisecond, b.Window(-3))
	unc := Backoff{Base: time.Second}
	assert.Positive(t, unc.Window(200), "no cap: still no overflow")
}

func TestDelayStaysInsideItsWindow(t *testing.T) {
	for _, j := range []Jitter{Full, Equal, None} {
		b := Backoff{Base: 8 * time.Millisecond, Max: time.Second, Jitter: j, Floor: time.Millisecond}
		seen := map[time.Duration]bool{}
		for n := 0; n < 12; n++ {
			w := b.Window(n)
			lo := time.Duration(0)
			switch j {
			case Equal:
				lo = w / 2
			case None:
				lo = w
			}
			for i := 0; i < 200; i++ {
				d := b.Delay(n)
				require.GreaterOrEqual(t, d, lo+b.Floor, "jitter %d retry %d", j, n)
				require.LessOrEqual(t, d, w+b.Floor, "jitter %d retry %d", j, n)
				seen[d] = true
			}
		}
		if j == None {
			assert.Len(t, seen, 8, "deterministic: one delay per window (8ms..1s)")
		} else {
			assert.Greater(t, len(seen), 100, "jittered delays spread out")
		}
	}
}

func TestSleepStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	err := Backoff{Base: time.Hour, Jitter: None}.Sleep(ctx, 0)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), time.Second)
	require.NoError(t, Backoff{Base: time.Millisecond}.Sleep(context.Background(), 0))
	require.NoError(t, SleepCtx(context.Background(), 0))
}

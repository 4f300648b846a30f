package httpapi

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRequestLoggerWritesAsWith: the request's logger writes what
// log.With("request_id", ..., "account", ...) wrote, byte for byte, in
// plain lines, further With and WithGroup, and below the level.
func TestRequestLoggerWritesAsWith(t *testing.T) {
	write := func(l *slog.Logger) {
		l.Info("one", "k", 1)
		l.Debug("hidden")
		l.With("x", "y").Warn("two", "z", true)
		l.WithGroup("g").Error("three", "n", 2)
		l.LogAttrs(context.Background(), slog.LevelInfo, "four", slog.String("a", "<b>"))
	}
	for _, text := range []bool{false, true} {
		var want, got bytes.Buffer
		newLog := func(b *bytes.Buffer) *slog.Logger {
			opts := &slog.HandlerOptions{Level: slog.LevelInfo}
			if text {
				return slog.New(slog.NewTextHandler(b, opts))
			}
			return slog.New(slog.NewJSONHandler(b, opts))
		}
		base := newLog(&want).With("service", "s")
		write(base.With("request_id", "req_1", "account", "acct_\"1\""))
		write(requestLogger(newLog(&got).With("service", "s"), "req_1", "acct_\"1\""))
		assert.Equal(t, stripTimes(want.String()), stripTimes(got.String()))
		assert.NotEmpty(t, got.String())
	}
}

// TestRequestLoggerIsSafeConcurrently: goroutines of one request may log
// at once.
func TestRequestLoggerIsSafeConcurrently(t *testing.T) {
	var mu sync.Mutex
	var buf bytes.Buffer
	l := requestLogger(slog.New(slog.NewJSONHandler(&lockedWriter{mu: &mu, w: &buf}, nil)), "req_1", "acct_1")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { l.Info("x") })
	}
	wg.Wait()
	assert.Equal(t, 8, bytes.Count(buf.Bytes(), []byte(`"request_id":"req_1","account":"acct_1"`)))
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// stripTimes drops the time attribute, the one thing two runs differ in.
func stripTimes(s string) string {
	var out bytes.Buffer
	for _, line := range bytes.Split([]byte(s), []byte("\n")) {
		if i := bytes.Index(line, []byte("time=")); i >= 0 {
			if j := bytes.IndexByte(line[i:], ' '); j >= 0 {
				line = append(append([]byte{}, line[:i]...), line[i+j+1:]...)
			}
		}
		if i := bytes.Index(line, []byte(`"time":"`)); i >= 0 {
			if j := bytes.Index(line[i+8:], []byte(`",`)); j >= 0 {
				line = append(append([]byte{}, line[:i]...), line[i+8+j+2:]...)
			}
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	return out.String()
}

package metrics

import "io"

// Test-only helpers: nothing outside the tests calls these.

// SetOutput sends the package's records to w (tests; the local gateway) and
// returns a function restoring the previous output.
func SetOutput(w io.Writer, env string) (restore func()) {
	emitter() // settle the default first, so restore returns to it
	stdMu.Lock()
	defer stdMu.Unlock()
	prev := std
	std = NewEmitter(w, env)
	return func() {
		stdMu.Lock()
		defer stdMu.Unlock()
		std = prev
	}
}

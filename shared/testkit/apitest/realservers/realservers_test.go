package realservers

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// recorder stands in for the test: Fatalf and Skipf stop the guard as the
// real ones do (runtime.Goexit), here by a panic the caller recovers.
type recorder struct {
	testing.TB
	fatal, skip string
}

type stopped struct{}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	panic(stopped{})
}
func (r *recorder) Skipf(format string, args ...any) {
	r.skip = fmt.Sprintf(format, args...)
	panic(stopped{})
}

func call(r *recorder) (endpoint string, returned bool) {
	defer func() {
		if v := recover(); v != nil && v != (stopped{}) {
			panic(v)
		}
	}()
	endpoint = Endpoint(r, "PAYGATE_TEST_SERVER", "start.sh")
	return endpoint, true
}

func TestEndpointReturnsTheSetAddress(t *testing.T) {
	t.Setenv("PAYGATE_TEST_SERVER", "http://127.0.0.1:1")
	t.Setenv(Require, "1")
	r := &recorder{}
	endpoint, returned := call(r)
	assert.True(t, returned)
	assert.Equal(t, "http://127.0.0.1:1", endpoint)
	assert.Empty(t, r.fatal+r.skip)
}

func TestEndpointFailsWhenServersAreRequired(t *testing.T) {
	t.Setenv("PAYGATE_TEST_SERVER", "")
	t.Setenv(Require, "1")
	r := &recorder{}
	_, returned := call(r)
	assert.False(t, returned, "the test stops")
	assert.Contains(t, r.fatal, "PAYGATE_TEST_SERVER is not set")
	assert.Contains(t, r.fatal, "start.sh")
	assert.Empty(t, r.skip, "never a skip where servers are required")
}

func TestEndpointSkipsOtherwise(t *testing.T) {
	t.Setenv("PAYGATE_TEST_SERVER", "")
	t.Setenv(Require, "")
	r := &recorder{}
	_, returned := call(r)
	assert.False(t, returned, "the test stops")
	assert.Contains(t, r.skip, "PAYGATE_TEST_SERVER is not set")
	assert.Empty(t, r.fatal)
}

package main

import (
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPprofOnlyOnLoopback: PPROF_ADDR unset serves nothing; a loopback
// address serves the profiles' index; any other address is refused.
func TestPprofOnlyOnLoopback(t *testing.T) {
	stop, err := servePprof("")
	require.NoError(t, err)
	stop()

	for _, addr := range []string{"0.0.0.0:0", "10.0.0.1:0", ":0", "example.com:0"} {
		_, err := servePprof(addr)
		assert.Error(t, err, addr)
	}

	port, err := freePortForTest()
	require.NoError(t, err)
	stop, err = servePprof(port)
	require.NoError(t, err)
	defer stop()
	resp, err := http.Get("http://" + port + "/debug/pprof/")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(body), "allocs")
}

// freePortForTest is a loopback address nothing listens on.
func freePortForTest() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

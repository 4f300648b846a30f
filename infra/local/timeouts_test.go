package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// shortTimeouts let the tests see the cut-off in well under a second; the
// assertions only bound it generously (closedWithin), never time it.
var shortTimeouts = timeouts{
	ReadHeader: 300 * time.Millisecond,
	Read:       500 * time.Millisecond,
	Write:      5 * time.Second,
	Idle:       300 * time.Millisecond,
}

// closedWithin is far above every short timeout: a connection still open then
// was not cut off at all.
const closedWithin = 10 * time.Second

// requireClosed reads until the server closes the connection (EOF or reset),
// failing if it is still open after closedWithin. It returns what was read.
func requireClosed(t *testing.T, c net.Conn) string {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(closedWithin)))
	got, err := io.ReadAll(c)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("connection still open after %s; read so far: %q", closedWithin, got)
	}
	return string(got) // nil error is EOF; a reset is also a close
}

func startShort(t *testing.T) *gateway {
	t.Helper()
	to := shortTimeouts
	return startWith(t, t.TempDir(), nil, func(o *options) { o.Timeouts = &to })
}

func TestStalledBodyIsCutOff(t *testing.T) {
	g := startShort(t)
	c, err := net.Dial("tcp", g.addr)
	require.NoError(t, err)
	defer c.Close()
	// Headers promise a body that never comes.
	_, err = io.WriteString(c, "POST /v2/sessions HTTP/1.1\r\nHost: local\r\nContent-Type: application/json\r\n"+
		"Authorization: sk_test_000000000000000000000000\r\nContent-Length: 1000\r\n\r\n{\"amount\":")
	require.NoError(t, err)
	requireClosed(t, c)
}

func TestSlowHeadersAreCutOff(t *testing.T) {
	g := startShort(t)
	c, err := net.Dial("tcp", g.addr)
	require.NoError(t, err)
	defer c.Close()
	_, err = io.WriteString(c, "GET /health HTTP/1.1\r\nHost: local\r\n")
	require.NoError(t, err)
	// Trickle one header byte at a time, each well inside the timeout, so only
	// a deadline on the whole header (not per read) ends it.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := io.WriteString(c, "x"); err != nil {
					return
				}
			}
		}
	}()
	got := requireClosed(t, c)
	require.NotContains(t, got, "200 OK", "the request was served")
}

func TestIdleKeepAliveIsClosed(t *testing.T) {
	g := startShort(t)
	c, err := net.Dial("tcp", g.addr)
	require.NoError(t, err)
	defer c.Close()
	_, err = io.WriteString(c, "GET /health HTTP/1.1\r\nHost: local\r\n\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	_, err = io.Copy(io.Discard, resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.False(t, resp.Close, "the first response keeps the connection alive")
	// Then the client says nothing: the server closes the idle connection.
	require.NoError(t, c.SetReadDeadline(time.Now().Add(closedWithin)))
	_, err = br.ReadByte()
	require.Error(t, err)
	require.False(t, errors.Is(err, os.ErrDeadlineExceeded), "idle connection still open after %s", closedWithin)
}

func TestDefaultTimeoutsMatchAPIGateway(t *testing.T) {
	// API Gateway HTTP APIs allow an integration at most 30 s; the local
	// gateway must neither cut a request shorter nor let one run longer.
	require.Equal(t, 30*time.Second, gatewayTimeouts.Read)
	require.Equal(t, 30*time.Second, gatewayTimeouts.Write)
	require.Positive(t, gatewayTimeouts.ReadHeader)
	require.LessOrEqual(t, gatewayTimeouts.ReadHeader, gatewayTimeouts.Read)
	require.Positive(t, gatewayTimeouts.Idle)
}

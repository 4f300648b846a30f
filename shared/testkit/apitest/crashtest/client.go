package crashtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Client calls a crash test's server as the merchant of Key: JSON in, the
// answer's JSON object out.
type Client struct {
	Key  string
	HTTP *http.Client // nil: one with a 5 s timeout
}

var keys atomic.Int64

// Do sends one request, with idem as its Idempotency-Key ("" for none). A
// transport error (the server died, as these tests make it) is returned,
// not fatal.
func (c Client) Do(base, method, path string, body any, idem string) (int, map[string]any, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", c.Key)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	cli := c.HTTP
	if cli == nil {
		cli = &http.Client{Timeout: 5 * time.Second}
	}
	res, err := cli.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, nil, err
	}
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return res.StatusCode, m, nil
}

// Must is Do for a server that is expected up: a transport error fails the
// test, and a POST gets an Idempotency-Key of its own.
func (c Client) Must(t testing.TB, base, method, path string, body any) (int, map[string]any) {
	t.Helper()
	idem := ""
	if method == http.MethodPost {
		idem = fmt.Sprintf("crashtest-%d-%d", time.Now().UnixNano(), keys.Add(1))
	}
	st, m, err := c.Do(base, method, path, body, idem)
	require.NoError(t, err)
	return st, m
}

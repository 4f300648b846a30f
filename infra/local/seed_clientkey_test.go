package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// SANDBOX_CLIENT_KEY registers a client key for the drop-in's endpoints,
// valid from its allowed origin only, and a restart keeps it.
func TestSandboxClientKey(t *testing.T) {
	const ck, origin = "ck_test_scriptclient0123456789abcdef", "https://shop.example.com"
	t.Setenv("SANDBOX_CLIENT_KEY", ck)
	t.Setenv("SANDBOX_CLIENT_ORIGINS", origin+", https://other.example.com")
	dir := t.TempDir()
	for range 2 { // the second start re-registers the same key: a no-op
		g := start(t, dir, map[string]string{"SANDBOX_API_KEY": "sk_test_scriptkey0123456789abcdefghij"}, nil)
		post := func(origin string) int {
			req, err := http.NewRequest(http.MethodPost, "http://"+g.addr+"/v2/client/sessions/CS0000/setup", strings.NewReader(`{"sessionData":"x"}`))
			require.NoError(t, err)
			req.Header.Set("Authorization", ck)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Origin", origin)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			return resp.StatusCode
		}
		require.Equal(t, http.StatusNotFound, post(origin), "an allowed origin reaches the handler (no such session)")
		require.Equal(t, http.StatusForbidden, post("https://evil.example.com"))
		g.stop()
	}
}

func TestBadSandboxClientKeyFailsStart(t *testing.T) {
	t.Setenv("SANDBOX_CLIENT_KEY", "ck_test_short")
	t.Setenv("SANDBOX_CLIENT_ORIGINS", "https://shop.example.com")
	getenv := func(k string) string {
		return map[string]string{"DATA_DIR": t.TempDir(), "PORT": "0"}[k]
	}
	err := run(t.Context(), options{Getenv: getenv, Stdout: io.Discard, Logs: io.Discard})
	require.ErrorContains(t, err, "SANDBOX_CLIENT_KEY")
}

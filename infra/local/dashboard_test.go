package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var dashboardLine = regexp.MustCompile(`sign in as owner@sandbox\.test with (\S+)`)

// signInDashboard signs in at the gateway's dashboard as the sandbox owner
// and returns the home page's status.
func signInDashboard(t *testing.T, g *gateway, password string) int {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	res, err := c.Get("http://" + g.addr + "/dashboard/sign-in")
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(string(body))
	require.NotNil(t, m, string(body))
	res, err = c.PostForm("http://"+g.addr+"/dashboard/sign-in", url.Values{"csrf": {m[1]}, "email": {SandboxOwner}, "password": {password}})
	require.NoError(t, err)
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode == 200 {
		require.Contains(t, string(body), SandboxOwner, "the home page, after the redirect")
	}
	return res.StatusCode
}

func TestSandboxDashboardOwner(t *testing.T) {
	dir := t.TempDir()
	g := start(t, dir, nil, nil)
	m := dashboardLine.FindStringSubmatch(g.out.String())
	require.NotNil(t, m, "the first start prints the owner's password:\n%s", g.out.String())
	password := m[1]
	require.Equal(t, 200, signInDashboard(t, g, password))
	g.stop()

	// A restart does not show it again; it still works.
	g = start(t, dir, nil, nil)
	require.NotContains(t, g.out.String(), password)
	require.Contains(t, g.out.String(), "users password --data-dir "+dir+" --email owner@sandbox.test")
	require.Equal(t, 200, signInDashboard(t, g, password))
	g.stop()

	// SANDBOX_DASHBOARD_PASSWORD sets it, and is never printed.
	envPW := "a sandbox passphrase from the environment"
	g = start(t, dir, map[string]string{"SANDBOX_DASHBOARD_PASSWORD": envPW}, nil)
	require.NotContains(t, g.out.String(), envPW)
	require.True(t, strings.Contains(g.out.String(), "with SANDBOX_DASHBOARD_PASSWORD"))
	require.Equal(t, 200, signInDashboard(t, g, envPW))
	require.Equal(t, 401, signInDashboard(t, g, password))
}

// TestGatewayServesTheDocs: make run serves the documentation, with no key
// or session: the index, a guide and the API reference.
func TestGatewayServesTheDocs(t *testing.T) {
	g := start(t, t.TempDir(), nil, nil)
	defer g.stop()
	for _, p := range []string{"/docs", "/docs/errors", "/docs/api", "/docs/api?q=refund"} {
		res, err := http.Get("http://" + g.addr + p)
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		require.Equal(t, 200, res.StatusCode, p)
		require.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"), p)
		require.NotEmpty(t, res.Header.Get("Content-Security-Policy"), p)
		require.Contains(t, string(body), "<main>", p)
	}
}

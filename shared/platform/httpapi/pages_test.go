package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/wiring"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// TestAPageWithATrailingSlashRedirects: a GET (or HEAD) of a page's path
// with the trailing slash a person types is a 308 to the page, the query
// kept; anything else with a trailing slash answers as before (the API's
// 404, or 405 with Allow): an API route, a POST, a file, an unknown page.
func TestAPageWithATrailingSlashRedirects(t *testing.T) {
	e := apitest.New(t, wiring.HTTP()...)
	noFollow := *e.Client
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	do := func(method, path string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, e.URL+path, nil)
		require.NoError(t, err)
		res, err := noFollow.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		return res
	}
	for path, want := range map[string]string{
		"/dashboard/":                   "/dashboard",
		"/dashboard/payments/":          "/dashboard/payments",
		"/dashboard/payments/?status=x": "/dashboard/payments?status=x",
		"/dashboard/payments/abc/":      "/dashboard/payments/abc",
		"/dashboard/sign-in/":           "/dashboard/sign-in",
		"/pay/pl_123/":                  "/pay/pl_123",
	} {
		for _, method := range []string{"GET", "HEAD"} {
			res := do(method, path)
			assert.Equal(t, http.StatusPermanentRedirect, res.StatusCode, "%s %s", method, path)
			assert.Equal(t, want, res.Header.Get("Location"), "%s %s", method, path)
		}
	}
	for path, status := range map[string]int{
		"/v1/customers/":             404,
		"/dashboard/static/app.css/": 404,
		"/dashboard/no-such-page/":   404,
		"/":                          404,
	} {
		res := do("GET", path)
		assert.Equal(t, status, res.StatusCode, path)
		assert.Empty(t, res.Header.Get("Location"), path)
	}
	res := do("POST", "/dashboard/payments/")
	assert.NotEqual(t, http.StatusPermanentRedirect, res.StatusCode, "a form's POST is not redirected")
}

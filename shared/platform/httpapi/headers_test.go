package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/wiring"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// send is a request with headers exactly as given (apitest sets each header
// once; these tests send some twice, or empty).
func send(t *testing.T, e *apitest.Env, method, path, body string, h http.Header) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.URL+path, rd)
	require.NoError(t, err)
	req.Header = h
	res, err := e.Client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	if !strings.HasPrefix(path, "/_test/") {
		require.NoError(t, e.Validator.Validate(method, req.URL.Path, res.StatusCode, res.Header.Get("Content-Type"), raw))
	}
	var out struct {
		Error map[string]any `json:"error"`
	}
	_ = json.Unmarshal(raw, &out)
	return res.StatusCode, out.Error
}

// TestHeaderRules: ambiguous credentials, a header sent twice, an empty
// Service-Version and a non-UTF-8 charset are refused, each naming what to
// fix; the accepted forms next to them.
func TestHeaderRules(t *testing.T) {
	e, _ := newEnv(t)
	_, otherKey := e.NewAccount("test")
	const body = `{"name":"x"}`
	cases := []struct {
		name         string
		method, path string
		h            http.Header
		status       int
		code, param  string
	}{
		{"same key in both headers", "GET", "/v1/merchants/me", http.Header{"Authorization": {e.Key}, "X-Api-Key": {e.Key}}, 200, "", ""},
		{"different keys in the two headers", "GET", "/v1/merchants/me", http.Header{"Authorization": {e.Key}, "X-Api-Key": {otherKey}}, 400, "conflicting_api_keys", "x-api-key"},
		{"Authorization twice", "GET", "/v1/merchants/me", http.Header{"Authorization": {e.Key, otherKey}}, 400, "header_duplicated", "Authorization"},
		{"Authorization twice, same key", "GET", "/v1/merchants/me", http.Header{"Authorization": {e.Key, e.Key}}, 400, "header_duplicated", "Authorization"},
		{"Authorization joined by a comma", "GET", "/v1/merchants/me", http.Header{"Authorization": {e.Key + ", " + otherKey}}, 400, "header_duplicated", "Authorization"},
		{"x-api-key twice", "GET", "/v1/merchants/me", http.Header{"X-Api-Key": {e.Key, otherKey}}, 400, "header_duplicated", "x-api-key"},
		{"empty Service-Version", "GET", "/v1/merchants/me", http.Header{"Authorization": {e.Key}, "Service-Version": {""}}, 400, "parameter_invalid", "Service-Version"},
		{"blank Service-Version", "GET", "/v1/merchants/me", http.Header{"Authorization": {e.Key}, "Service-Version": {"  "}}, 400, "parameter_invalid", "Service-Version"},
		{"Service-Version twice", "GET", "/v1/merchants/me", http.Header{"Authorization": {e.Key}, "Service-Version": {"2024-01-15", "2023-06-01"}}, 400, "header_duplicated", "Service-Version"},
		{"Service-Version twice on a public route", "GET", "/health", http.Header{"Service-Version": {"2024-01-15", "2023-06-01"}}, 400, "header_duplicated", "Service-Version"},
		{"Idempotency-Key twice", "POST", "/_test/idem", http.Header{"Authorization": {e.Key}, "Content-Type": {"application/json"}, "Idempotency-Key": {"k1", "k2"}}, 400, "header_duplicated", "Idempotency-Key"},
		{"Idempotency-Key joined by a comma", "POST", "/_test/idem", http.Header{"Authorization": {e.Key}, "Content-Type": {"application/json"}, "Idempotency-Key": {"k1, k2"}}, 400, "header_duplicated", "Idempotency-Key"},
		{"empty Idempotency-Key", "POST", "/_test/idem", http.Header{"Authorization": {e.Key}, "Content-Type": {"application/json"}, "Idempotency-Key": {""}}, 400, "parameter_invalid", "Idempotency-Key"},
		{"Idempotency-Key on a route without keys", "POST", "/_test/echo", http.Header{"Authorization": {e.Key}, "Content-Type": {"application/json"}, "Idempotency-Key": {strings.Repeat("k", 40<<10)}}, 400, "parameter_invalid", "Idempotency-Key"},
		{"Content-Type twice", "POST", "/_test/echo", http.Header{"Authorization": {e.Key}, "Content-Type": {"application/json", "text/plain"}}, 400, "header_duplicated", "Content-Type"},
		{"charset utf-8", "POST", "/_test/echo", http.Header{"Authorization": {e.Key}, "Content-Type": {"application/json; charset=UTF-8"}}, 201, "", ""},
		{"charset latin-1", "POST", "/_test/echo", http.Header{"Authorization": {e.Key}, "Content-Type": {"application/json; charset=iso-8859-1"}}, 415, "", ""},
		{"charset utf-16", "POST", "/_test/echo", http.Header{"Authorization": {e.Key}, "Content-Type": {"application/json; charset=utf-16"}}, 415, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := ""
			if c.method == "POST" {
				b = body
			}
			status, er := send(t, e, c.method, c.path, b, c.h)
			require.Equal(t, c.status, status, "%v", er)
			if c.code != "" {
				assert.Equal(t, c.code, er["code"])
			}
			if c.param != "" {
				assert.Equal(t, c.param, er["param"])
				assert.Contains(t, er["message"], c.param)
			}
		})
	}
}

// TestURLStringRules: path and query parameters follow the body's string
// rule (valid UTF-8, no C0 control, no bidi override), and a query parameter
// given twice is refused as a duplicate JSON name is.
func TestURLStringRules(t *testing.T) {
	e := apitest.New(t, wiring.HTTP()...)
	cases := []struct{ path, code, param string }{
		{"/orders?external_ref=a%00b", "parameter_invalid", "external_ref"},
		{"/orders?external_ref=a%ffb", "parameter_invalid", "external_ref"},
		{"/orders?external_ref=a%E2%80%AEb", "parameter_invalid", "external_ref"},
		{"/orders?status=completed&status=failed", "parameter_duplicate", "status"},
		{"/orders?limit=1&limit=100", "parameter_duplicate", "limit"},
		{"/orders?status=%zz", "parameter_invalid", "query"},
		{"/orders?a%00=1", "parameter_invalid", "query"},
		{"/orders/%E2%80%AE0190a6c2-0000-7000-8000-000000000000", "parameter_invalid", "orderId"},
		{"/orders/a%01b", "parameter_invalid", "orderId"},
		{"/products/1%ff", "parameter_invalid", "productId"},
		{"/deposits?currency=U%00D", "parameter_invalid", "currency"},
		{"/v2/sessions/CS%E2%81%A6x", "parameter_invalid", "id"},
	}
	for _, c := range cases {
		r := e.Do("GET", c.path, nil)
		require.Equal(t, 400, r.Status, "%s: %s", c.path, r.Body)
		assert.Equal(t, c.code, r.Err(t)["code"], c.path)
		assert.Equal(t, c.param, r.Err(t)["param"], c.path)
	}
}

// TestIdempotencyKeyRulesOnEveryRoute: a 40 KB Idempotency-Key, or one that
// is not printable ASCII, is a 400 naming the header on every route of every
// group (test helpers, GETs and routes that take no key included), on both
// stores; never a 5xx.
func TestIdempotencyKeyRulesOnEveryRoute(t *testing.T) {
	backendsOf(t, func(t *testing.T, e *apitest.Env) {
		const origin = "https://shop.example.com"
		ck := e.NewClientKey(origin)
		seen := 0
		for _, b := range wiring.HTTP() {
			g, err := b(e.Deps)
			require.NoError(t, err)
			for _, rt := range g.Routes {
				path := strings.NewReplacer("{id}", "CS0000", "{orderId}", uuid.NewString(), "{agent_id}", e.Account.ID,
					"{productId}", "101").Replace(rt.Path)
				for _, key := range []string{strings.Repeat("k", 40<<10), "k\u00e9y", "k\tkey"} {
					h := http.Header{"Authorization": {e.Key}, "Idempotency-Key": {key}}
					if strings.HasPrefix(rt.Path, "/v2/client/") {
						h = http.Header{"Authorization": {ck}, "Origin": {origin}, "Idempotency-Key": {key}}
					}
					body := ""
					if rt.Method == "POST" {
						body = "{}"
						h.Set("Content-Type", "application/json")
					}
					status, er := send(t, e, rt.Method, path, body, h)
					require.Equal(t, 400, status, "%s: %v", rt.Pattern(), er)
					assert.Equal(t, "Idempotency-Key", er["param"], rt.Pattern())
				}
				seen++
			}
		}
		require.Greater(t, seen, 20)
	})
}

package httpapi_test

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// TestHSTSOffLoopback: every answer served off loopback carries
// Strict-Transport-Security (a resource, an error, a panic, an unmatched
// path, a 405), and none served on loopback does (make run, the tests).
func TestHSTSOffLoopback(t *testing.T) {
	s := httpapi.NewServer(httpapi.Config{}, httpapi.Group{Name: "Probe", Routes: []httpapi.Route{
		{Method: "GET", Path: "/ok", Handler: func(*httpapi.Request) (*httpapi.Response, error) {
			return httpapi.OK("", map[string]string{"a": "b"}), nil
		}},
		{Method: "GET", Path: "/fails", Handler: func(*httpapi.Request) (*httpapi.Response, error) {
			return nil, apierr.NotFoundf("no such thing")
		}},
		{Method: "GET", Path: "/panics", Handler: func(*httpapi.Request) (*httpapi.Response, error) {
			panic("boom")
		}},
		{Method: "GET", Path: "/secret", Auth: httpapi.AuthSecret, Handler: func(*httpapi.Request) (*httpapi.Response, error) {
			return httpapi.OK("", nil), nil
		}},
	}})
	paths := []struct{ method, path string }{{"GET", "/ok"}, {"GET", "/fails"}, {"GET", "/panics"}, {"GET", "/secret"}, {"GET", "/nowhere"}, {"POST", "/ok"}}
	for _, c := range []struct {
		host string
		hsts bool
	}{
		{"api.example.com", true},
		{"abc123.execute-api.eu-west-1.amazonaws.com", true},
		{"localhost.evil.com", true},
		{"127.0.0.1.nip.io", true},
		{"", true},
		{"127.0.0.1:8080", false},
		{"127.0.0.2", false},
		{"localhost:8080", false},
		{"LOCALHOST", false},
		{"[::1]:8080", false},
	} {
		for _, p := range paths {
			hr := httptest.NewRequest(p.method, "http://x"+p.path, nil)
			hr.Host = c.host
			w := httptest.NewRecorder()
			s.ServeHTTP(w, hr)
			if c.hsts {
				assert.Equal(t, "max-age=31536000; includeSubDomains", w.Header().Get("Strict-Transport-Security"), "%s %s on %q (status %d)", p.method, p.path, c.host, w.Code)
			} else {
				assert.Empty(t, w.Header().Values("Strict-Transport-Security"), "%s %s on %q", p.method, p.path, c.host)
			}
		}
	}
}

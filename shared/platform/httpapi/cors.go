package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/platform/version"
)

// Cross-origin calls. Only client-key routes (AuthClient, the drop-in's
// /v2/client/...) are meant for a browser on another origin, the merchant's
// page. Their answers carry Access-Control-Allow-Origin exactly when a
// client key allowed from the request's Origin authenticated the request
// (errors after that included, so the page can read a refusal); any other
// answer carries none, so a browser hands it to no other origin's script.
//
// A preflight (OPTIONS with Access-Control-Request-Method) carries no key, so
// it cannot be decided by the key's origins: each client path declares an
// OPTIONS route whose handler decides from what the path names (checkout:
// the session's account, whose client keys must allow the origin) and
// answers with Preflight or a 403. The actual request is then checked
// against its key as always.

// PreflightMaxAge is how long a browser may reuse a preflight's answer
// (Chrome caps it at 2 hours).
const PreflightMaxAge = 2 * time.Hour

// CORSAllowedHeaders are the request headers a cross-origin client may send:
// the key, the body's type, and the platform's own headers.
var CORSAllowedHeaders = []string{"Authorization", "x-api-key", "Content-Type", idempotency.Header, version.Header}

// CORSExposedHeaders are the response headers a cross-origin page may read.
var CORSExposedHeaders = []string{RequestIDHeader, version.Header, idempotency.ReplayedHeader}

func allowOrigin(h http.Header, origin string) {
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Expose-Headers", strings.Join(CORSExposedHeaders, ", "))
}

// PreflightRequest is what a CORS preflight asks: the page's origin, the
// method it wants to send, and the headers it wants to send (lower case).
type PreflightRequest struct {
	Origin  string
	Method  string
	Headers []string
}

// Preflight reads the request as a CORS preflight; ok is false when it is
// a plain OPTIONS (no Origin or no Access-Control-Request-Method).
func (r *Request) Preflight() (p PreflightRequest, ok bool) {
	h := r.HTTP.Header
	p.Origin, p.Method = h.Get("Origin"), h.Get("Access-Control-Request-Method")
	for _, v := range h.Values("Access-Control-Request-Headers") {
		for _, name := range strings.Split(v, ",") {
			if name = strings.ToLower(strings.TrimSpace(name)); name != "" {
				p.Headers = append(p.Headers, name)
			}
		}
	}
	return p, p.Origin != "" && p.Method != ""
}

// HeadersAllowed reports whether every header the preflight names is one a
// cross-origin client may send.
func (p PreflightRequest) HeadersAllowed() bool {
	for _, name := range p.Headers {
		ok := false
		for _, a := range CORSAllowedHeaders {
			if strings.EqualFold(a, name) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// Preflight is the answer to an allowed preflight from origin: 204 naming
// the methods and headers the page may use, for PreflightMaxAge.
func Preflight(origin string, methods ...string) *Response {
	h := http.Header{}
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Allow-Methods", strings.Join(methods, ", "))
	h.Set("Access-Control-Allow-Headers", strings.Join(CORSAllowedHeaders, ", "))
	h.Set("Access-Control-Max-Age", strconv.Itoa(int(PreflightMaxAge.Seconds())))
	h.Set("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
	return &Response{Status: http.StatusNoContent, Headers: h}
}

// Options is the answer to an OPTIONS that is not a preflight: 204 with the
// path's methods in Allow, and no CORS headers.
func Options(methods ...string) *Response {
	h := http.Header{}
	h.Set("Allow", strings.Join(append([]string{http.MethodOptions}, methods...), ", "))
	return &Response{Status: http.StatusNoContent, Headers: h}
}

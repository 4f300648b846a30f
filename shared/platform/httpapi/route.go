// Package httpapi is the HTTP platform every function group shares: routes,
// the middleware chain (request id, logging, panic recovery, body limit,
// content type, auth, version, idempotency), strict decoding, and rendering of
// responses and errors in the caller's API version.
package httpapi

import (
	"net/http"
	"strings"

	"github.com/paygate/paygate/shared/platform/auth"
)

// AuthMode says which credential a route takes.
type AuthMode int

const (
	AuthNone   AuthMode = iota // public (health, OpenAPI document)
	AuthSecret                 // server key (sk_...), in Authorization or x-api-key
	AuthClient                 // client key (ck_...) from an allowed Origin
)

// IdemMode says how a route uses Idempotency-Key.
type IdemMode int

const (
	IdemNone           IdemMode = iota // not a creating or money-moving POST
	IdemOptional                       // honoured when sent (claim/complete around the handler)
	IdemRequired                       // must be sent (claim/complete around the handler)
	IdemInline                         // must be sent; the service writes the record in its transaction (idempotency.Commit)
	IdemInlineOptional                 // honoured when sent; as IdemInline
)

// Handler serves one route. It returns a response or an error; the platform
// renders both in the caller's version.
type Handler func(r *Request) (*Response, error)

// Route is one method and path (Go 1.22 pattern syntax, same as API Gateway's
// {param}).
type Route struct {
	Method      string
	Path        string
	Auth        AuthMode
	Idempotency IdemMode
	TestOnly    bool // only test-mode keys (the /test-helpers endpoints)
	// Since is the first API version that has the route (""; every one): a
	// request at an older version, from its Service-Version or its
	// account's default, is a 400 naming the version it needs, before the
	// handler or the Idempotency-Key is looked at.
	Since string
	// MaxBody is the route's body limit in bytes (0: MaxBody, 1 MiB); a
	// larger body is a 413.
	MaxBody int64
	// Form makes the route take an HTML form's body
	// (application/x-www-form-urlencoded) instead of JSON: the dashboard's
	// pages post forms, which work without JavaScript.
	Form bool
	// Page marks a GET route that answers an HTML page to a browser: the
	// same path with a trailing slash, as a person types it, redirects to
	// it instead of the API's 404.
	Page    bool
	Handler Handler
	// MuxPath, when set, is the path the Go mux registers instead of Path,
	// for a declared path Go 1.22 refuses beside another one (neither more
	// specific: /v1/transactions/{id}/history beside
	// /v1/transactions/by-order-reference/{ref}; API Gateway takes the
	// literal segment first). It is a wider pattern; the server narrows it
	// back to Path (what Path does not match is unmatched: 404, or 405 with
	// an Allow of the real methods).
	MuxPath string
}

// Group is one Lambda function's routes. Name is its logical id in
// template.yaml.
type Group struct {
	Name   string
	Routes []Route
}

// Principal is the authenticated caller.
type Principal = auth.Key

// pathParams names the route's path parameters ({id}, {rest...}).
func (rt Route) pathParams() []string {
	var names []string
	for _, seg := range strings.Split(rt.Path, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			if name := strings.TrimSuffix(strings.Trim(seg, "{}"), "..."); name != "$" {
				names = append(names, name)
			}
		}
	}
	return names
}

// Pattern is the mux pattern of a route.
func (rt Route) Pattern() string { return rt.Method + " " + rt.Path }

func (rt Route) muxPattern() string {
	if rt.MuxPath != "" {
		return rt.Method + " " + rt.MuxPath
	}
	return rt.Pattern()
}

var knownMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

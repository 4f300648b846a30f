package httpapi

import (
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/paygate/paygate/shared/accounts"
	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/idempotency"
)

// Request is what a handler sees.
type Request struct {
	HTTP      *http.Request
	ID        string // request id, also in the Request-Id header
	Body      []byte // the raw body, already size-limited
	Principal *Principal
	Version   string // the API version this request is served in
	Log       *slog.Logger
	Now       time.Time // request time from the server's clock
	route     *Route
	server    *Server
}

// PathValue returns a path parameter.
func (r *Request) PathValue(name string) string { return r.HTTP.PathValue(name) }

// Query returns a query parameter.
func (r *Request) Query(name string) string { return r.HTTP.URL.Query().Get(name) }

// AccountID is the caller's account; empty on public routes.
func (r *Request) AccountID() string {
	if r.Principal == nil {
		return ""
	}
	return r.Principal.AccountID
}

// TestMode reports whether the caller uses a test key.
func (r *Request) TestMode() bool { return r.Principal != nil && r.Principal.Mode == accounts.Test }

// IdempotencyRequest identifies this call for the idempotency store: account,
// key and a fingerprint of method, route and body. Inline routes use it.
func (r *Request) IdempotencyRequest() idempotency.Request {
	return idempotency.Request{
		Account:     r.AccountID(),
		Key:         r.HTTP.Header.Get(idempotency.Header),
		Fingerprint: idempotency.Fingerprint(r.HTTP.Method, r.route.Path, r.Body),
	}
}

// Idempotency is the server's idempotency store, for inline routes.
func (r *Request) Idempotency() *idempotency.Store { return r.server.idem }

// Render renders resp exactly as it will be sent to this caller, so an inline
// route can store the same bytes it returns.
func (r *Request) Render(resp *Response) (idempotency.Result, error) {
	body, err := r.server.render(r.Version, resp)
	if err != nil {
		return idempotency.Result{}, err
	}
	return idempotency.Result{Status: resp.Status, Body: body, Version: r.Version}, nil
}

// ListParams are the list convention's limit and cursor.
type ListParams struct {
	Limit  int
	Cursor string
}

// DefaultLimit and MaxLimit are the list convention's bounds.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// ListParams parses limit (1..100, default 20) and cursor.
func (r *Request) ListParams() (ListParams, error) {
	p := ListParams{Limit: DefaultLimit, Cursor: r.Query("cursor")}
	if s := r.Query("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxLimit {
			return p, apierr.Invalidf("limit", "limit must be an integer from 1 to %d", MaxLimit)
		}
		p.Limit = n
	}
	if len(p.Cursor) > 1024 {
		return p, apierr.Invalidf("cursor", "cursor is malformed")
	}
	return p, nil
}

// TimeRange parses an optional RFC 3339 range from two query parameters.
func (r *Request) TimeRange(fromParam, toParam string) (from, to time.Time, err error) {
	parse := func(name string) (time.Time, error) {
		s := r.Query(name)
		if s == "" {
			return time.Time{}, nil
		}
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return time.Time{}, apierr.Invalidf(name, "%s must be an RFC 3339 date-time, e.g. 2024-01-15T10:00:00Z", name)
		}
		return t.UTC(), nil
	}
	if from, err = parse(fromParam); err != nil {
		return
	}
	if to, err = parse(toParam); err != nil {
		return
	}
	if !from.IsZero() && !to.IsZero() && to.Before(from) {
		err = apierr.Invalidf(toParam, "%s is before %s", toParam, fromParam)
	}
	return
}

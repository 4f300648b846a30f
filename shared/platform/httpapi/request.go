package httpapi

import (
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/platform/listing"
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
	call      *idempotency.Call // inline routes with a key
}

// PathValue returns a path parameter.
func (r *Request) PathValue(name string) string { return r.HTTP.PathValue(name) }

// PathID is the path parameter name, which must be an id (a UUID): else
// 400 naming the parameter, before any store is asked.
func (r *Request) PathID(name string) (string, error) {
	id := r.PathValue(name)
	if _, err := ids.ParseField(name, id); err != nil {
		return "", err
	}
	return id, nil
}

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
// key kind (client keys are their own namespace), key, and a fingerprint of
// the method, the actual path (not the route pattern: two ids are two
// requests) and the body, keyed with the store's fingerprint key.
func (r *Request) IdempotencyRequest() idempotency.Request {
	kind := ""
	if r.Principal != nil {
		kind = string(r.Principal.Kind)
	}
	return r.server.idem.Request(r.AccountID(), kind, r.HTTP.Header.Get(idempotency.Header), r.HTTP.Method, r.HTTP.URL.Path, r.Body)
}

// Idem is the request's idempotent call on inline routes, for the service's
// typed input: the service hands it to idempotency.Commit with its business
// ops. Nil when the route is not inline or an optional key was not sent;
// Commit then writes the business ops alone.
func (r *Request) Idem() *idempotency.Call { return r.call }

// Render renders resp exactly as it will be sent to this caller, so a stored
// result replays the same bytes.
func (r *Request) Render(resp *Response) (idempotency.Result, error) {
	body, err := r.server.render(r.Version, resp)
	if err != nil {
		return idempotency.Result{}, err
	}
	return idempotency.Result{Status: resp.Status, Body: body, Version: r.Version}, nil
}

// renderer renders a service's outcome for this caller.
func (r *Request) renderer() idempotency.Renderer {
	return func(o idempotency.Outcome) (idempotency.Result, error) {
		return r.Render(&Response{Status: OutcomeStatus(o), Kind: o.Kind, Body: o.Value})
	}
}

// OutcomeStatus is the status a service's outcome answers with: 201 for a
// new resource, else 200.
func OutcomeStatus(o idempotency.Outcome) int {
	if o.Created {
		return http.StatusCreated
	}
	return http.StatusOK
}

// ListParams parses limit (1..100, default 20) and cursor. The cursor a
// client sends is bound to this list (route, account, filters: see
// listing.Scope); p.Cursor is the store's cursor inside it, and the platform
// binds the next_cursor of the list this request answers the same way.
func (r *Request) ListParams() (listing.Params, error) {
	p := listing.Params{Limit: listing.DefaultLimit}
	if s := r.Query("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > listing.MaxLimit {
			return p, apierr.Invalidf("limit", "limit must be an integer from 1 to %d", listing.MaxLimit)
		}
		p.Limit = n
	}
	c := r.Query("cursor")
	if len(c) > MaxCursor {
		return p, apierr.Invalidf("cursor", "cursor is malformed: pass next_cursor back unchanged")
	}
	inner, err := r.listScope().Unbind(c)
	if err != nil {
		return p, err
	}
	p.Cursor = inner
	return p, nil
}

// MaxCursor is the longest cursor accepted (the OpenAPI document's maxLength).
const MaxCursor = 1024

func (r *Request) listScope() listing.Scope {
	return listing.Scope{Route: r.route.Pattern(), Account: r.AccountID(), Filters: r.HTTP.URL.Query()}
}

// bindListCursor binds a list response's next_cursor to this request's list.
func (r *Request) bindListCursor(resp *Response) {
	if resp == nil {
		return
	}
	if b, ok := resp.Body.(cursorBinder); ok {
		resp.Body = b.bindCursor(r.listScope().Bind)
	}
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

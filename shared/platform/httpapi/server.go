package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"mime"
	"net/http"
	"net/url"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/auth"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/platform/version"
)

// MaxBody is the request body limit (1 MiB).
const MaxBody = 1 << 20

// RequestIDHeader is set on every response.
const RequestIDHeader = "Request-Id"

// Config is what a Server needs.
type Config struct {
	Log   *slog.Logger
	Keys  *auth.Keys
	Idem  *idempotency.Store
	Clock func() time.Time
}

// Server serves route groups.
type Server struct {
	mux   *http.ServeMux
	log   *slog.Logger
	keys  *auth.Keys
	idem  *idempotency.Store
	clock func() time.Time
	paths []Route
	// narrow holds, by mux pattern, the declared pattern of each route
	// served through a wider MuxPath: a request the declared path does not
	// match is unmatched (404, or 405 with Allow), never the route's.
	narrow map[string]*http.ServeMux
	// pages holds the GET patterns of the Page routes: a GET of one of
	// their paths with a trailing slash redirects to it (serveUnmatched).
	pages *http.ServeMux
}

// NewServer builds the handler for groups. A route registered twice panics at
// start, as http.ServeMux does.
func NewServer(cfg Config, groups ...Group) *Server {
	s := &Server{mux: http.NewServeMux(), log: cfg.Log, keys: cfg.Keys, idem: cfg.Idem, clock: cfg.Clock}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.clock == nil {
		s.clock = time.Now
	}
	s.narrow = map[string]*http.ServeMux{}
	s.pages = http.NewServeMux()
	for _, g := range groups {
		for _, rt := range g.Routes {
			rt := rt
			s.paths = append(s.paths, rt)
			if rt.Page && rt.Method == http.MethodGet {
				s.pages.Handle(rt.Pattern(), http.NotFoundHandler())
			}
			if rt.MuxPath != "" {
				exact := http.NewServeMux()
				exact.Handle(rt.Pattern(), http.NotFoundHandler())
				s.narrow[rt.muxPattern()] = exact
			}
			// Built once here, not per request (each is a concatenation).
			pattern, muxPattern := rt.Pattern(), rt.muxPattern()
			s.mux.Handle(muxPattern, http.HandlerFunc(func(w http.ResponseWriter, hr *http.Request) {
				if !s.admits(muxPattern, hr) {
					s.serveUnmatched(w, hr)
					return
				}
				s.serveRoute(w, hr, &rt, pattern)
			}))
		}
	}
	s.mux.Handle("/", http.HandlerFunc(s.serveUnmatched))
	return s
}

// Routes lists the served routes (the local gateway test compares them with
// template.yaml).
func (s *Server) Routes() []Route { return slices.Clone(s.paths) }

type ctxKey struct{}

// state is per request, shared by the middleware and the logger.
type state struct {
	id        string
	route     string
	account   string
	version   string
	status    int
	principal *Principal
	// corsOrigin is the request's Origin once a client key allowed from it
	// authenticated the request: its answers, errors included, carry
	// Access-Control-Allow-Origin for it (cors.go).
	corsOrigin string
}

func (s *Server) ServeHTTP(w http.ResponseWriter, hr *http.Request) {
	start := time.Now()
	st := &state{id: ids.Prefixed("req"), version: version.Current} // req_ and the UUIDv7's 32 hex digits
	w.Header().Set(RequestIDHeader, st.id)
	setHSTS(w.Header(), hr)
	hr = hr.WithContext(context.WithValue(hr.Context(), ctxKey{}, st))
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("panic", "request_id", st.id, "route", st.route, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			s.writeError(w, st, &apierr.Error{Kind: apierr.Internal, Op: "panic"})
		}
		level := slog.LevelInfo
		if st.status >= 500 {
			level = slog.LevelError
		}
		s.log.LogAttrs(hr.Context(), level, "request",
			slog.String("request_id", st.id), slog.String("method", hr.Method), slog.String("route", st.route),
			slog.Int("status", st.status), slog.Float64("latency_ms", float64(time.Since(start).Microseconds())/1000),
			slog.String("account", st.account), slog.String("version", st.version))
	}()
	s.mux.ServeHTTP(w, hr)
}

func stateOf(hr *http.Request) *state { return hr.Context().Value(ctxKey{}).(*state) }

// serveUnmatched answers 405 with Allow when the path exists under other
// methods, else 404, in the error body.
// admits reports whether the route registered under mux pattern takes hr:
// always, unless it is served through a wider MuxPath that its declared path
// does not match.
func (s *Server) admits(pattern string, hr *http.Request) bool {
	exact, ok := s.narrow[pattern]
	if !ok {
		return true
	}
	_, p := exact.Handler(hr)
	return p != ""
}

func (s *Server) serveUnmatched(w http.ResponseWriter, hr *http.Request) {
	st := stateOf(hr)
	st.route = "unmatched"
	if v := hr.Header.Get(version.Header); version.Known(v) {
		st.version = v
	}
	if to, ok := s.pageWithoutSlash(hr); ok {
		st.route = "page redirect"
		w.Header().Set("Location", to)
		st.status = http.StatusPermanentRedirect
		w.WriteHeader(http.StatusPermanentRedirect)
		return
	}
	var allow []string
	for _, m := range knownMethods {
		probe := hr.Clone(hr.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" && pattern != "/" && s.admits(pattern, probe) {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		s.writeError(w, st, apierr.Kindf(apierr.MethodNotAllowed, "%s is not allowed here; allowed: %s", hr.Method, strings.Join(allow, ", ")))
		return
	}
	s.writeError(w, st, apierr.New(CodeRouteNotFound, "no route for %s %s", hr.Method, hr.URL.Path))
}

// pageWithoutSlash is where a GET (or HEAD) of a page's path with a
// trailing slash goes: the page's own path, with the query kept.
func (s *Server) pageWithoutSlash(hr *http.Request) (string, bool) {
	path := hr.URL.Path
	if (hr.Method != http.MethodGet && hr.Method != http.MethodHead) || len(path) < 2 || !strings.HasSuffix(path, "/") {
		return "", false
	}
	probe := hr.Clone(hr.Context())
	probe.Method = http.MethodGet
	probe.URL.Path = strings.TrimRight(path, "/")
	probe.URL.RawPath = ""
	if _, pattern := s.pages.Handler(probe); pattern == "" {
		return "", false
	}
	to := probe.URL.Path
	if hr.URL.RawQuery != "" {
		to += "?" + hr.URL.RawQuery
	}
	return to, true
}

func (s *Server) serveRoute(w http.ResponseWriter, hr *http.Request, rt *Route, pattern string) {
	st := stateOf(hr)
	st.route = pattern
	resp, err := s.handle(hr, rt, st)
	if rep, ok := idempotency.AsReplayed(err); ok {
		resp, err = Replay(rep.Result), nil
	}
	if err != nil {
		s.writeError(w, st, err)
		return
	}
	s.write(w, st, resp)
}

func (s *Server) handle(hr *http.Request, rt *Route, st *state) (*Response, error) {
	if err := checkHeaders(hr.Header); err != nil {
		return nil, err
	}
	// Version from the header first, so even a 401 speaks the caller's version.
	if v := hr.Header.Get(version.Header); v != "" {
		if !version.Known(v) {
			return nil, apierr.Invalidf(version.Header, "unknown %s %q; known versions: %s", version.Header, v, version.List())
		}
		st.version = v
	}
	if err := checkURL(hr, rt); err != nil {
		return nil, err
	}
	body, err := readBody(hr, rt.bodyLimit(), rt.Form)
	if err != nil {
		return nil, err
	}
	req := &Request{HTTP: hr, ID: st.id, Body: body, Version: st.version, Now: s.clock(), route: rt, server: s}
	if err := s.authenticate(req, rt, st); err != nil {
		return nil, err
	}
	req.Version = st.version
	if rt.Since != "" && st.version < rt.Since { // dated versions compare as strings
		return nil, apierr.New(CodeVersionUnsupported, "%s exists from %s %s; this request is at %s (send %s: %s or later, or change the account's default)",
			rt.Path, version.Header, rt.Since, st.version, version.Header, rt.Since).WithParam(version.Header)
	}
	req.Log = requestLogger(s.log, st.id, st.account)
	switch rt.Idempotency {
	case IdemOptional, IdemRequired:
		return s.idempotent(req, rt)
	case IdemInline, IdemInlineOptional:
		return s.inline(req, rt)
	}
	resp, err := rt.Handler(req)
	if err == nil {
		req.bindListCursor(resp)
	}
	return resp, err
}

// onceHeaders are the headers the platform reads that must come once: a
// second value (or, behind API Gateway, values joined by a comma) would let a
// proxy and the service read different requests. Authorization and x-api-key
// are checked with the key (keyFromHeaders), on the routes that take one.
var onceHeaders = []string{version.Header, idempotency.Header, "Content-Type", "Origin"}

// checkHeaders applies the header rules on every route: the headers above
// once each; Service-Version, when sent, not empty; Idempotency-Key, when
// sent, valid (at most 255 printable ASCII characters, no comma), whether or
// not the route uses it, so a bad key is the same 400 everywhere.
func checkHeaders(h http.Header) error {
	for _, name := range onceHeaders {
		if len(h.Values(name)) > 1 {
			return duplicateHeader(name)
		}
	}
	if vs, ok := h[version.Header]; ok && strings.TrimSpace(vs[0]) == "" {
		return apierr.New(apierr.CodeParameterInvalid, "%s is empty: send one of %s, or leave the header out for the account's default", version.Header, version.List()).WithParam(version.Header)
	}
	if vs, ok := h[idempotency.Header]; ok {
		if vs[0] == "" {
			return apierr.Invalidf(idempotency.Header, "Idempotency-Key is empty: send a key, or leave the header out")
		}
		if strings.Contains(vs[0], ",") {
			return duplicateHeader(idempotency.Header)
		}
		if err := idempotency.ValidateKey(vs[0]); err != nil {
			return err
		}
	}
	return nil
}

// checkURL applies the string rule (checkString, without the body's length
// maxima: handlers state their own) to the path parameters and the query:
// valid UTF-8, no C0 control, no bidi override. A malformed query string or a
// query parameter given twice is a 400, as a duplicate JSON name is.
func checkURL(hr *http.Request, rt *Route) error {
	for _, name := range rt.pathParams() {
		if err := checkString(hr.PathValue(name), name, math.MaxInt, false, false); err != nil {
			return err
		}
	}
	if hr.URL.RawQuery == "" {
		return nil
	}
	q, err := url.ParseQuery(hr.URL.RawQuery)
	if err != nil {
		return apierr.New(apierr.CodeParameterInvalid, "the query string is malformed (percent-encode its values)").WithParam("query")
	}
	names := slices.Sorted(maps.Keys(q))
	for _, name := range names {
		if err := checkString(name, "query", math.MaxInt, false, true); err != nil {
			return err
		}
		vs := q[name]
		if len(vs) > 1 {
			return apierr.New(apierr.CodeParameterDuplicate, "%s appears more than once in the query; send it once", name).WithParam(name)
		}
		if err := checkString(vs[0], name, math.MaxInt, false, false); err != nil {
			return err
		}
	}
	return nil
}

// inline serves a route whose service writes the idempotency record in its
// own transaction (idempotency.Commit): the key is read before any work (a
// replay, 409 or 422 answers at once), the handler gets the call through
// Request.Idem, and a success must have been recorded: a handler that forgot
// the helper is a 500 in every test of its route, never a silent double run.
func (s *Server) inline(req *Request, rt *Route) (*Response, error) {
	key := req.HTTP.Header.Get(idempotency.Header)
	if key == "" && rt.Idempotency == IdemInlineOptional {
		return rt.Handler(req)
	}
	if err := idempotency.ValidateKey(key); err != nil {
		return nil, err
	}
	call, err := s.idem.Begin(req.HTTP.Context(), req.IdempotencyRequest(), req.renderer())
	if err != nil {
		return nil, err
	}
	req.call = call
	resp, err := rt.Handler(req)
	if err != nil || resp.Status < 200 || resp.Status >= 300 {
		return resp, err
	}
	res, ok := call.Recorded()
	if !ok {
		return nil, &apierr.Error{Kind: apierr.Internal, Op: "httpapi.inline",
			Err: errors.New(rt.Pattern() + " answered 2xx without idempotency.Commit")}
	}
	// Exactly the stored bytes, so the first answer and its replays match.
	out := Raw(res.Status, res.Body)
	out.Headers = resp.Headers
	return out, nil
}

// bodyLimit is the route's body limit.
func (rt *Route) bodyLimit() int64 {
	if rt.MaxBody > 0 {
		return rt.MaxBody
	}
	return MaxBody
}

// readBody enforces the size limit and the JSON content type (a form route's
// body is an HTML form's instead).
func readBody(hr *http.Request, limit int64, form bool) ([]byte, error) {
	if hr.Body == nil || hr.Body == http.NoBody {
		return nil, nil
	}
	if hr.ContentLength > limit {
		return nil, tooLarge(limit)
	}
	body, err := io.ReadAll(io.LimitReader(hr.Body, limit+1))
	if err != nil {
		return nil, apierr.New(CodeBodyUnreadable, "the request body could not be read")
	}
	if int64(len(body)) > limit {
		return nil, tooLarge(limit)
	}
	if len(body) == 0 {
		return nil, nil
	}
	ct := hr.Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if form {
		if err != nil || mt != "application/x-www-form-urlencoded" {
			return nil, apierr.Kindf(apierr.UnsupportedMedia, "send the form as application/x-www-form-urlencoded (got %q)", ct)
		}
		return body, nil
	}
	if err != nil || mt != "application/json" {
		return nil, apierr.Kindf(apierr.UnsupportedMedia, "send the body as application/json (got %q)", ct)
	}
	// JSON is UTF-8 (RFC 8259); a body declared in another charset would be
	// read as UTF-8 all the same, so it is refused rather than misread.
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return nil, apierr.Kindf(apierr.UnsupportedMedia, "JSON bodies are UTF-8: send charset=utf-8 or no charset (got %q)", cs)
	}
	return body, nil
}

func tooLarge(limit int64) error {
	return apierr.Kindf(apierr.TooLarge, "the request body is larger than %d bytes", limit)
}

func (s *Server) authenticate(req *Request, rt *Route, st *state) error {
	if rt.Auth == AuthNone {
		return nil
	}
	secret, err := keyFromHeaders(req.HTTP.Header)
	if err != nil {
		return err
	}
	k, err := s.keys.Authenticate(req.HTTP.Context(), secret)
	if err != nil {
		return err
	}
	switch {
	case rt.Auth == AuthSecret && k.Kind != auth.Secret:
		return apierr.New(CodeWrongKeyKind, "this endpoint takes a secret API key, not a client key")
	case rt.Auth == AuthClient && k.Kind != auth.Client:
		return apierr.New(CodeWrongKeyKind, "this endpoint takes a client key; secret keys must never reach a browser or app")
	case rt.Auth == AuthClient && !k.AllowsOrigin(req.HTTP.Header.Get("Origin")):
		return apierr.New(apierr.CodeOriginNotAllowed, "this client key is not allowed from origin %q", req.HTTP.Header.Get("Origin"))
	case rt.Auth == AuthClient:
		st.corsOrigin = req.HTTP.Header.Get("Origin")
	}
	req.Principal = k
	st.principal = k
	st.account = k.AccountID
	if req.HTTP.Header.Get(version.Header) == "" && version.Known(k.DefaultVersion) {
		st.version = k.DefaultVersion
	}
	if rt.TestOnly && !req.TestMode() {
		return apierr.New(apierr.CodeTestModeOnly, "test helpers take test-mode keys only")
	}
	return nil
}

// idempotent runs the handler under a claim on the Idempotency-Key.
func (s *Server) idempotent(req *Request, rt *Route) (*Response, error) {
	key := req.HTTP.Header.Get(idempotency.Header)
	if key == "" && rt.Idempotency == IdemOptional {
		return rt.Handler(req)
	}
	if err := idempotency.ValidateKey(key); err != nil {
		return nil, err
	}
	ir := req.IdempotencyRequest()
	// Claim, Complete and Release run detached from the request's context
	// (inside the store): a client that gives up after the handler ran
	// still gets its result recorded, so its retry replays.
	ctx := req.HTTP.Context()
	prev, claim, err := s.idem.Claim(ctx, ir)
	if err != nil {
		return nil, err
	}
	if prev != nil {
		return Replay(*prev), nil
	}
	resp, herr := s.safeHandle(req, rt)
	if herr == nil && resp.Status >= 200 && resp.Status < 300 {
		res, err := req.Render(resp)
		if err != nil {
			return nil, apierr.Wrap("render", apierr.Internal, err)
		}
		if err := s.idem.Complete(ctx, claim, res); err != nil {
			// The work is done but not recorded: keep the claim (it lapses
			// after its lease) rather than invite a duplicate, and say so.
			req.Log.Error("idempotency record not stored", "error", err.Error())
		}
		return Raw(res.Status, res.Body), nil
	}
	if err := s.idem.Release(ctx, claim); err != nil {
		req.Log.Error("idempotency release failed", "error", err.Error())
	}
	return resp, herr
}

// safeHandle turns a handler panic into an error so the claim is released.
func (s *Server) safeHandle(req *Request, rt *Route) (resp *Response, err error) {
	defer func() {
		if p := recover(); p != nil {
			req.Log.Error("panic", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			resp, err = nil, &apierr.Error{Kind: apierr.Internal, Op: "panic"}
		}
	}()
	return rt.Handler(req)
}

// Replay is the response for a stored idempotent result.
func Replay(res idempotency.Result) *Response {
	r := Raw(res.Status, res.Body)
	r.Headers = http.Header{idempotency.ReplayedHeader: []string{"true"}}
	if res.Version != "" {
		r.Headers.Set(version.Header, res.Version)
	}
	return r
}

func (s *Server) write(w http.ResponseWriter, st *state, resp *Response) {
	body, err := s.render(st.version, resp)
	if err != nil {
		s.writeError(w, st, apierr.Wrap("render", apierr.Internal, err))
		return
	}
	h := w.Header()
	h.Set(version.Header, st.version)
	for k, vs := range resp.Headers {
		h[k] = vs
	}
	if len(body) > 0 {
		ct := resp.ContentType
		if ct == "" {
			ct = "application/json"
		}
		h.Set("Content-Type", ct)
	}
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "no-store")
	}
	if st.corsOrigin != "" {
		allowOrigin(h, st.corsOrigin)
	}
	st.status = resp.Status
	w.WriteHeader(resp.Status)
	_, _ = w.Write(body)
}

func (s *Server) writeError(w http.ResponseWriter, st *state, err error) {
	e := apierr.As(err)
	if e.Kind == apierr.Internal || e.Kind == apierr.Unavailable {
		s.log.Error("request failed", "request_id", st.id, "route", st.route, "error", e.Error())
	}
	if errors.Is(err, context.Canceled) {
		e = &apierr.Error{Kind: apierr.Unavailable, Message: "the request was cancelled"}
	}
	s.write(w, st, errorResponse(e, st.id))
}

package dashboard

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/idempotency"
)

// The web layer: every page is html/template (text is escaped, so a
// payment reference carrying <script> shows as text), drawn inside one
// layout; every answer carries the headers below; every form carries the
// session's CSRF token and every POST checks it before anything else;
// viewers get 403 on any POST that changes something, whatever the page
// showed them.

// CSP is the dashboard's Content-Security-Policy: its own script and
// stylesheet only, no inline code, forms to itself, no framing.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// Cookie names. The session cookie is HttpOnly, SameSite=Strict, Path
// /dashboard, and Secure except on a loopback address over plain HTTP
// (make run), where a browser would not send it back.
const (
	SessionCookie = "paygate_dashboard"
	// PreCSRFCookie holds the sign-in form's CSRF token (double submit):
	// before sign-in there is no session to keep it in.
	PreCSRFCookie = "paygate_dashboard_csrf"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

var funcs = template.FuncMap{
	"amount": formatAmount,
	"when":   func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
	"whenp": func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	},
	// phone shows a shopper's phone number's last 4 digits only.
	"phone": func(p string) string {
		if len(p) <= 4 {
			return p
		}
		return strings.Repeat("•", len(p)-4) + p[len(p)-4:]
	},
	"unix": func(s int64) string { return time.Unix(s, 0).UTC().Format("2006-01-02 15:04 UTC") },
}

// layout is the pages' layout, parsed on first use.
var layout = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html"))
})

// pages are the page templates, each with the layout, each parsed the first
// time it is shown (not when the package loads, nor all at the first page:
// a cold start pays for its own page alone).
var pages = func() map[string]func() *template.Template {
	out := map[string]func() *template.Template{}
	names, _ := fs.Glob(templateFS, "templates/*.html") // a constant pattern: the only error is ErrBadPattern
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" {
			continue
		}
		out[name] = sync.OnceValue(func() *template.Template {
			return template.Must(template.Must(layout().Clone()).ParseFS(templateFS, n))
		})
	}
	return out
}()

// formatAmount is minor units as major units with the currency: 1,234.50 EUR.
func formatAmount(v int64, cur string) string {
	c, err := money.ParseCurrency(cur)
	if err != nil {
		return strconv.FormatInt(v, 10) + " " + cur
	}
	neg := v < 0
	if neg {
		v = -v
	}
	whole, frac, _ := strings.Cut(money.FormatDecimal(v, c), ".")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, d := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String() + " " + cur
}

// headers are every dashboard answer's.
func headers() http.Header {
	h := http.Header{}
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	return h
}

// view is what every page's template gets.
type view struct {
	Title   string
	Nav     string // the current section, for the menu
	Session *Session
	Account string // the account's name
	Mode    string // test or live
	Pair    string // the account of the other mode to switch to ("": none)
	Notice  string
	Error   string
	Data    any
}

// CanChange and IsOwner let templates hide what the role may not do (the
// server refuses it anyway).
func (v view) CanChange() bool { return v.Session != nil && v.Session.Role.CanChange() }
func (v view) IsOwner() bool   { return v.Session != nil && v.Session.Role == Owner }

// CSRF is the session's token for the page's forms.
func (v view) CSRF() string {
	if v.Session == nil {
		return ""
	}
	return v.Session.CSRF
}

// NewKey is a fresh idempotency key for a form that moves money: a
// resubmitted form (a double click, a reload) replays instead of moving it
// twice.
func (v view) NewKey() string { return "dash_" + strings.ReplaceAll(newID(), "-", "") }

func render(status int, name string, v view, extra http.Header) (*httpapi.Response, error) {
	page, ok := pages[name]
	if !ok {
		return nil, apierr.Wrap("dashboard.render", apierr.Internal, fmt.Errorf("no page %q", name))
	}
	var buf bytes.Buffer
	if err := page().ExecuteTemplate(&buf, "layout.html", v); err != nil {
		return nil, apierr.Wrap("dashboard.render", apierr.Internal, err)
	}
	resp := httpapi.Bytes(status, "text/html; charset=utf-8", buf.Bytes())
	resp.Headers = headers()
	for k, vs := range extra {
		resp.Headers[k] = vs
	}
	return resp, nil
}

func redirect(to string, extra http.Header) *httpapi.Response {
	resp := httpapi.Bytes(http.StatusSeeOther, "text/html; charset=utf-8", []byte(`<!doctype html><title>See other</title><a href="`+template.HTMLEscapeString(to)+`">Continue</a>`))
	resp.Headers = headers()
	resp.Headers.Set("Location", to)
	for k, vs := range extra {
		resp.Headers[k] = vs
	}
	return resp
}

// loopback reports whether the request came to a loopback host over plain
// HTTP: only there is the cookie sent without Secure.
func loopback(r *http.Request) bool {
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		return false
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

func cookie(r *http.Request, name, value string, maxAge int) string {
	c := &http.Cookie{Name: name, Value: value, Path: "/dashboard", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: !loopback(r)}
	return c.String()
}

// clientAddress is the caller's address: API Gateway's source IP (the
// Lambda adapter puts it in RemoteAddr), the socket's peer locally. Never
// X-Forwarded-For, which the caller writes.
func clientAddress(r *http.Request) string {
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return h
	}
	if r.RemoteAddr == "" {
		return "unknown"
	}
	return r.RemoteAddr
}

// call is one request to a page: the session (nil on sign-in), the form.
type call struct {
	r    *httpapi.Request
	sess *Session
	form url.Values
	v    view
}

func (c *call) ctx() context.Context { return c.r.HTTP.Context() }

type handler func(c *call) (*httpapi.Response, error)

// errorPage renders an error as a page with its status: 404 for another
// account's record as for a missing one.
func (s *Service) errorPage(c *call, err error) (*httpapi.Response, error) {
	e := apierr.As(err)
	if e.Kind == apierr.Internal || e.Kind == apierr.Unavailable {
		c.r.Log.Error("dashboard page failed", "error", e.Error())
	}
	status := e.Kind.Status()
	msg := e.Message
	title := http.StatusText(status)
	switch {
	case e.Kind == apierr.Internal:
		msg = "Something went wrong on our side. The request id is " + c.r.ID + "."
	case e.Kind == apierr.NotFound:
		title, msg = "Not found", "There is nothing here, or it belongs to another account."
	case apierr.HasCode(e, CodeSignInLocked):
		status = http.StatusTooManyRequests
	}
	v := c.v
	v.Title, v.Error = title, msg
	return render(status, "error", v, nil)
}

// MaxQuery is the longest query value a page takes (its filters, cursors).
const MaxQuery = 200

// MaxFormValue is the longest value a form field takes.
const MaxFormValue = 2048

// pathValue is what a record id in a dashboard path may hold: every id the
// services issue (UUIDs, key_..., we_..., file names) fits it.
var pathValue = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,100}$`)

// checkInput holds a request to the limits the document states, before
// anything else (a session included): path ids, query values, form values.
func checkInput(r *httpapi.Request, form url.Values) error {
	for _, name := range []string{"id", "file"} {
		if v := r.PathValue(name); v != "" && !pathValue.MatchString(v) {
			return apierr.Invalidf(name, "%s must be 1 to 100 letters, digits and _ . : -", name)
		}
	}
	for name, vs := range r.HTTP.URL.Query() {
		if len([]rune(vs[0])) > MaxQuery {
			return apierr.Invalidf(name, "%s has at most %d characters", name, MaxQuery)
		}
	}
	for name, vs := range form {
		for _, v := range vs {
			if len([]rune(v)) > MaxFormValue {
				return apierr.Invalidf(name, "%s has at most %d characters", name, MaxFormValue)
			}
		}
	}
	return nil
}

// page serves a GET page to a signed-in user of any role.
func (s *Service) page(fn handler) httpapi.Handler {
	return func(r *httpapi.Request) (*httpapi.Response, error) {
		c := &call{r: r}
		if err := checkInput(r, nil); err != nil {
			return s.errorPage(c, err)
		}
		sess, err := s.sessionOf(r)
		if errors.Is(err, ErrNoSession) {
			return redirect("/dashboard/sign-in", nil), nil
		}
		if err != nil {
			return s.errorPage(c, err)
		}
		c.sess = sess
		c.v = s.baseView(r, sess)
		resp, err := fn(c)
		if err != nil {
			return s.errorPage(c, err)
		}
		return resp, nil
	}
}

// form serves a POST that changes something: a session, its CSRF token,
// a role that may change the account's things (any role when self: the
// form changes only the user's own settings), then fn. A successful change
// is written to the audit log by fn (audit).
func (s *Service) form(self bool, fn handler) httpapi.Handler {
	return func(r *httpapi.Request) (*httpapi.Response, error) {
		c := &call{r: r}
		form, perr := url.ParseQuery(string(r.Body))
		if err := checkInput(r, form); err != nil {
			return s.errorPage(c, err)
		}
		sess, err := s.sessionOf(r)
		if errors.Is(err, ErrNoSession) {
			return s.errorPage(c, apierr.New(CodeSessionEnded, "Your session has ended: sign in again."))
		}
		if err != nil {
			return s.errorPage(c, err)
		}
		c.sess, c.form = sess, form
		c.v = s.baseView(r, sess)
		if perr != nil || !sess.CheckCSRF(form.Get("csrf")) {
			return s.errorPage(c, apierr.New(CodeCSRF, "This form is out of date or did not come from the dashboard: reload the page and try again."))
		}
		if !self && !sess.Role.CanChange() {
			return s.errorPage(c, apierr.New(CodeRole, "Your role (%s) may not do this.", sess.Role))
		}
		resp, err := fn(c)
		if err != nil {
			return s.errorPage(c, err)
		}
		return resp, nil
	}
}

func (s *Service) sessionOf(r *httpapi.Request) (*Session, error) {
	ck, err := r.HTTP.Cookie(SessionCookie)
	if err != nil {
		return nil, ErrNoSession
	}
	return s.Lookup(r.HTTP.Context(), ck.Value)
}

// baseView is every page's header: the account the session reads and
// writes, its mode, and its pair to switch to. A session switched to an
// account that is no longer the user's account's pair reads the user's own
// account again (the check costs nothing more: the page reads the account
// it shows anyway).
func (s *Service) baseView(r *httpapi.Request, sess *Session) view {
	v := view{Session: sess}
	ctx := r.HTTP.Context()
	a, err := s.accounts.Get(ctx, sess.Account)
	if err == nil && sess.Account != sess.User.AccountID && a.Pair != sess.User.AccountID {
		sess.Account, sess.Role = sess.User.AccountID, sess.User.Role
		a, err = s.accounts.Get(ctx, sess.Account)
	}
	if err == nil {
		v.Account, v.Mode, v.Pair = a.Name, string(a.Mode), a.Pair
		if a.Pair != sess.User.AccountID && !sess.roles[a.Pair].Valid() {
			v.Pair = "" // no role on the pair: no switch to it
		}
	}
	return v
}

// audited runs a form's change with its audit entry in the change's own
// transaction (Service.Audited); fn gets the context to make the change
// under, and may return the record's id when the change makes it.
func (s *Service) audited(c *call, action, target, detail string, fn func(ctx context.Context) (string, error)) error {
	return s.Audited(c.ctx(), c.account(), s.entry(c.sess, c.r.HTTP, action, target, detail), fn)
}

// entry is an audit entry of the session's user, with its role on the
// session's account, from the request's address.
func (s *Service) entry(sess *Session, r *http.Request, action, target, detail string) AuditEntry {
	return AuditEntry{Email: sess.User.Email, Role: sess.Role, Action: action, Target: target, Detail: detail, Address: clientAddress(r)}
}

// idemCall is the idempotent call of a money form: its key from the form,
// scoped to the account and the dashboard's namespace.
func (s *Service) idemCall(c *call, fields any) (*idempotency.Call, error) {
	body, ok := fields.(string)
	if !ok {
		b, err := json.Marshal(fields)
		if err != nil {
			return nil, apierr.Wrap("dashboard.idemCall", apierr.Internal, err)
		}
		body = string(b)
	}
	key := c.form.Get("idempotency_key")
	if key == "" {
		return nil, apierr.Missing("idempotency_key")
	}
	if err := idempotency.ValidateKey(key); err != nil {
		return nil, err
	}
	req := s.idem.Request(c.account(), "dashboard", key, "POST", c.r.HTTP.URL.Path, []byte(body))
	return s.idem.Begin(c.r.HTTP.Context(), req, jsonRenderer)
}

// jsonRenderer records a money form's outcome as JSON: a replay of the
// form only needs to know that it was done.
func jsonRenderer(o idempotency.Outcome) (idempotency.Result, error) {
	b, err := json.Marshal(o.Value)
	return idempotency.Result{Status: httpapi.OutcomeStatus(o), Body: b}, err
}

// replayed reports whether err is a money form's key replaying: the form
// was sent before and did its work.
func replayed(err error) bool {
	_, ok := idempotency.AsReplayed(err)
	return ok
}

func newID() string { return ids.New() }

// claimed runs fn under a claim on the form's idempotency key, for forms
// whose service takes no idempotency call (an API key's create and roll): a
// form sent again after it worked runs nothing (done is true; the secret,
// shown once, is not shown again), a duplicate in flight is a 409, and a
// failure releases the key so the form can be sent again.
func (s *Service) claimed(c *call, fields string, fn func() error) (done bool, err error) {
	key := c.form.Get("idempotency_key")
	if err := idempotency.ValidateKey(key); err != nil {
		return false, err
	}
	req := s.idem.Request(c.account(), "dashboard", key, "POST", c.r.HTTP.URL.Path, []byte(fields))
	prev, claim, err := s.idem.Claim(c.ctx(), req)
	if err != nil {
		return false, err
	}
	if prev != nil {
		return true, nil
	}
	if err := fn(); err != nil {
		if rerr := s.idem.Release(c.ctx(), claim); rerr != nil {
			c.r.Log.Error("idempotency release failed", "error", rerr.Error())
		}
		return false, err
	}
	if err := s.idem.Complete(c.ctx(), claim, idempotency.Result{Status: http.StatusCreated, Body: []byte("{}")}); err != nil {
		c.r.Log.Error("idempotency record not stored", "error", err.Error())
	}
	return false, nil
}

// nextQuery is a list's next-page query for a link's href: url.Values
// encodes it (each value escaped), so it goes into the attribute as a URL,
// not re-escaped as one query value ("cursor=..." sent as "cursor%3d...",
// which the server read as no cursor: the next page was the first again).
func nextQuery(q url.Values) template.URL { return template.URL(q.Encode()) }

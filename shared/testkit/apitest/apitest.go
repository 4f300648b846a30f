// Package apitest runs function groups behind a real HTTP server for tests,
// over the embedded store (or any store, such as DynamoDB Local), with a
// sandbox account and key. Every response a test receives is validated
// against the service's OpenAPI document, and every log line is captured so
// a test run can prove no key, card number or CVC was ever logged.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/auth"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/openapi"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/queue/boltqueue"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
	"github.com/paygate/paygate/shared/testkit/openapitest"
)

// Env is one running test server.
type Env struct {
	T         testing.TB
	Deps      *app.Deps
	URL       string
	Account   *accounts.Account // the sandbox (test-mode) account
	Key       string            // its secret key
	Validator *openapitest.Validator
	Clock     *Clock
	Client    *http.Client
	id        int64 // tags this server's log lines, for the 5xx scan
}

// Clock is a settable clock shared by the store and the services.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// Now returns the clock's time; it follows real time unless Set.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.now.IsZero() {
		return time.Now()
	}
	return c.now
}

// Set freezes the clock at t.
func (c *Clock) Set(t time.Time) { c.mu.Lock(); c.now = t; c.mu.Unlock() }

// Advance moves a frozen clock (freezing it at now first).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	if c.now.IsZero() {
		c.now = time.Now()
	}
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Builder builds one group; the same builders the Lambda mains use.
type Builder = app.HTTPBuilder

// Options tunes New.
type Options struct {
	Store store.Store // default: a fresh embedded store in t.TempDir()
	Queue queue.Queue // default: a fresh embedded queue
	Clock *Clock
	// Connectors replace the outside systems' sandboxes (nil ones stay).
	Connectors connectors.Set
}

// New starts a server with the given groups over a fresh embedded store.
func New(t testing.TB, builders ...Builder) *Env { return NewWith(t, Options{}, builders...) }

// NewWith starts a server with explicit options.
func NewWith(t testing.TB, o Options, builders ...Builder) *Env {
	t.Helper()
	if o.Clock == nil {
		o.Clock = &Clock{}
	}
	dir := t.TempDir()
	if o.Store == nil {
		st, err := boltstore.Open(filepath.Join(dir, "store.db"), o.Clock.Now)
		require.NoError(t, err)
		t.Cleanup(func() { st.Close() })
		o.Store = st
	}
	if o.Queue == nil {
		q, err := boltqueue.Open(filepath.Join(dir, "queue.db"), o.Clock.Now)
		require.NoError(t, err)
		t.Cleanup(func() { q.Close() })
		o.Queue = q
	}
	envID := registerEnv(t.Name())
	log := slog.New(slog.NewJSONHandler(Logs, &slog.HandlerOptions{Level: slog.LevelDebug})).With(envAttr, envID)
	d := app.WithStore(o.Store, o.Queue, log, o.Clock.Now)
	d.Connectors = o.Connectors
	groups := make([]httpapi.Group, 0, len(builders))
	for _, b := range builders {
		g, err := b(d)
		require.NoError(t, err)
		groups = append(groups, g)
	}
	srv := httptest.NewServer(d.Server(groups...))
	t.Cleanup(srv.Close)
	v, err := Validator()
	require.NoError(t, err)
	e := &Env{T: t, Deps: d, URL: srv.URL, Validator: v, Clock: o.Clock, Client: srv.Client(), id: envID}
	e.Account, e.Key = e.NewAccount(accounts.Test)
	return e
}

var (
	validatorOnce sync.Once
	validator     *openapitest.Validator
	validatorErr  error
)

// Validator is the service document's validator, built once per test binary.
func Validator() (*openapitest.Validator, error) {
	validatorOnce.Do(func() { validator, validatorErr = openapitest.New("paygate", openapi.Document()) })
	return validator, validatorErr
}

// NewAccount creates another account with a secret key.
func (e *Env) NewAccount(mode accounts.Mode) (*accounts.Account, string) {
	e.T.Helper()
	ctx := context.Background()
	a, err := e.Deps.Accounts.Create(ctx, accounts.NewAccount{Name: "Test " + string(mode), Mode: mode, Country: "KZ"})
	require.NoError(e.T, err)
	_, secret, err := e.Deps.Keys.Create(ctx, a.ID, auth.NewKey{Name: "test"})
	require.NoError(e.T, err)
	RememberSecret(secret)
	return a, secret
}

// NewClientKey issues a client key for the sandbox account.
func (e *Env) NewClientKey(origins ...string) string {
	e.T.Helper()
	_, secret, err := e.Deps.Keys.Create(context.Background(), e.Account.ID, auth.NewKey{Kind: auth.Client, AllowedOrigins: origins})
	require.NoError(e.T, err)
	RememberSecret(secret)
	return secret
}

// Resp is a received response.
type Resp struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v.
func (r *Resp) JSON(t testing.TB, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(r.Body, v), "body: %s", r.Body)
}

// Map decodes the body as an object.
func (r *Resp) Map(t testing.TB) map[string]any {
	var m map[string]any
	r.JSON(t, &m)
	return m
}

// Err is the current error body's "error" object (nil if absent).
func (r *Resp) Err(t testing.TB) map[string]any {
	e, _ := r.Map(t)["error"].(map[string]any)
	return e
}

// H is a header list for Do: "Name", "value", ...
type H []string

// Do sends a request with the sandbox key (unless headers set Authorization,
// x-api-key, or "Authorization", "" to send none). body may be nil, a
// string/[]byte sent as is, or a value marshalled as JSON. The response is
// validated against the OpenAPI document.
func (e *Env) Do(method, path string, body any, headers ...string) *Resp {
	e.T.Helper()
	return e.DoKey(e.Key, method, path, body, headers...)
}

// DoKey is Do with another key ("" for none).
func (e *Env) DoKey(key, method, path string, body any, headers ...string) *Resp {
	e.T.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		require.NoError(e.T, err)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, e.URL+path, rd)
	require.NoError(e.T, err)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := e.Client.Do(req)
	require.NoError(e.T, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(e.T, err)
	r := &Resp{Status: res.StatusCode, Header: res.Header, Body: raw}
	require.NotEmpty(e.T, res.Header.Get("Request-Id"), "every response carries Request-Id")
	// Routes under /_test/ exist only inside tests of the platform itself.
	if !strings.HasPrefix(req.URL.Path, "/_test/") && req.URL.Path != "/openapi.json" {
		require.NoError(e.T, e.Validator.Validate(method, req.URL.Path, r.Status, res.Header.Get("Content-Type"), raw))
	}
	return r
}

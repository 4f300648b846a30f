package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// idemProbe is a test-only group for the idempotency platform: routes with
// path ids, both key kinds, handlers that outlive their client, and inline
// routes that write through idempotency.Commit (or forget to).
type idemProbe struct {
	calls   atomic.Int64
	entered chan struct{}
	done    chan struct{}
}

func (p *idemProbe) build(d *app.Deps) (httpapi.Group, error) {
	run := func(r *httpapi.Request) (*httpapi.Response, error) {
		n := p.calls.Add(1)
		return httpapi.Created("probe", map[string]any{"path": r.HTTP.URL.Path, "n": n}), nil
	}
	// outlive waits until the client has gone, then does its work: the
	// request's context is cancelled when the handler returns.
	outlive := func(r *httpapi.Request) {
		p.entered <- struct{}{}
		select {
		case <-r.HTTP.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}
	inline := func(r *httpapi.Request, hang bool) (*httpapi.Response, error) {
		if hang {
			outlive(r)
		}
		n := p.calls.Add(1)
		body := map[string]any{"path": r.HTTP.URL.Path, "n": n}
		op := store.Put(store.Item{Key: store.Key{Table: store.TableOrders, PK: "probe#" + r.AccountID(), SK: r.HTTP.URL.Path + "#" + time.Now().String()}, Data: []byte(`{}`)}, store.IfAbsent)
		if err := idempotency.Commit(r.HTTP.Context(), d.Store, r.Idem(), idempotency.Outcome{Created: true, Kind: "probe", Value: body}, op); err != nil {
			return nil, err
		}
		defer func() {
			if hang {
				p.done <- struct{}{}
			}
		}()
		return httpapi.Created("probe", body), nil
	}
	return httpapi.Group{Name: "IdemProbe", Routes: []httpapi.Route{
		{Method: "POST", Path: "/_test/things/{id}/act", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemRequired, Handler: run},
		{Method: "POST", Path: "/_test/act", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemRequired, Handler: run},
		{Method: "POST", Path: "/_test/client/act", Auth: httpapi.AuthClient, Idempotency: httpapi.IdemRequired, Handler: run},
		{Method: "POST", Path: "/_test/outlive", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemRequired,
			Handler: func(r *httpapi.Request) (*httpapi.Response, error) {
				outlive(r)
				resp, err := run(r)
				p.done <- struct{}{}
				return resp, err
			}},
		{Method: "POST", Path: "/_test/inline/{id}", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline,
			Handler: func(r *httpapi.Request) (*httpapi.Response, error) { return inline(r, false) }},
		{Method: "POST", Path: "/_test/inline-outlive", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline,
			Handler: func(r *httpapi.Request) (*httpapi.Response, error) { return inline(r, true) }},
		{Method: "POST", Path: "/_test/inline-optional", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInlineOptional,
			Handler: func(r *httpapi.Request) (*httpapi.Response, error) { return inline(r, false) }},
		{Method: "POST", Path: "/_test/forgot", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline, Handler: run},
	}}, nil
}

func idemBackends(t *testing.T, f func(t *testing.T, e *apitest.Env, p *idemProbe)) {
	mk := func(t *testing.T, o apitest.Options) {
		p := &idemProbe{entered: make(chan struct{}, 1), done: make(chan struct{}, 1)}
		f(t, apitest.NewWith(t, o, buildHealth, p.build), p)
	}
	t.Run("embedded", func(t *testing.T) { mk(t, apitest.Options{}) })
	t.Run("dynamodb", func(t *testing.T) {
		clock := &apitest.Clock{}
		mk(t, apitest.Options{Store: dynamotest.New(t, clock.Now), Clock: clock})
	})
}

// TestSameKeyTwoPathIDsIs422: the fingerprint holds the actual path.
func TestSameKeyTwoPathIDsIs422(t *testing.T) {
	idemBackends(t, func(t *testing.T, e *apitest.Env, p *idemProbe) {
		for _, prefix := range []string{"/_test/things/", "/_test/inline/"} {
			suffix := map[string]string{"/_test/things/": "/act", "/_test/inline/": ""}[prefix]
			key := "two-ids" + prefix
			a := e.Do("POST", prefix+"A"+suffix, nil, "Idempotency-Key", key)
			require.Equal(t, 201, a.Status, "%s", a.Body)
			b := e.Do("POST", prefix+"B"+suffix, nil, "Idempotency-Key", key)
			require.Equal(t, 422, b.Status, "%s: B must not replay A's answer: %s", prefix, b.Body)
			again := e.Do("POST", prefix+"A"+suffix, nil, "Idempotency-Key", key)
			require.Equal(t, 201, again.Status)
			assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
			assert.Equal(t, a.Body, again.Body)
		}
		assert.EqualValues(t, 2, p.calls.Load(), "A ran once per route, B never")
	})
}

// TestClientAndSecretKeyAreIndependent: one key from a client key and from a
// secret key of the same account: two namespaces.
func TestClientAndSecretKeyAreIndependent(t *testing.T) {
	idemBackends(t, func(t *testing.T, e *apitest.Env, p *idemProbe) {
		ck := e.NewClientKey("https://shop.example")
		shopper := e.DoKey(ck, "POST", "/_test/client/act", nil, "Idempotency-Key", "same", "Origin", "https://shop.example")
		require.Equal(t, 201, shopper.Status, "%s", shopper.Body)
		merchant := e.Do("POST", "/_test/act", nil, "Idempotency-Key", "same")
		require.Equal(t, 201, merchant.Status, "the shopper did not burn the merchant's key: %s", merchant.Body)
		assert.Empty(t, merchant.Header.Get("Idempotent-Replayed"))
		r := e.DoKey(ck, "POST", "/_test/client/act", nil, "Idempotency-Key", "same", "Origin", "https://shop.example")
		assert.Equal(t, shopper.Body, r.Body)
		assert.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))
		r = e.Do("POST", "/_test/act", nil, "Idempotency-Key", "same")
		assert.Equal(t, merchant.Body, r.Body)
		assert.EqualValues(t, 2, p.calls.Load())
	})
}

// TestCancelledClientAfterTheHandlerRan: the client disconnects while the
// handler works; the handler finishes; its result is recorded anyway, so the
// retry replays (immediately and after the lease) and the work ran once. On
// both a claimed route and an inline one.
func TestCancelledClientAfterTheHandlerRan(t *testing.T) {
	idemBackends(t, func(t *testing.T, e *apitest.Env, p *idemProbe) {
		for _, path := range []string{"/_test/outlive", "/_test/inline-outlive"} {
			t.Run(strings.TrimPrefix(path, "/_test/"), func(t *testing.T) {
				before := p.calls.Load()
				key := "cancelled" + path
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				req, err := http.NewRequestWithContext(ctx, "POST", e.URL+path, nil)
				require.NoError(t, err)
				req.Header.Set("Authorization", e.Key)
				req.Header.Set(idempotency.Header, key)
				gone := make(chan error, 1)
				go func() {
					resp, err := e.Client.Do(req)
					if err == nil {
						resp.Body.Close()
					}
					gone <- err
				}()
				select {
				case <-p.entered:
				case <-time.After(10 * time.Second):
					t.Fatal("the handler never started")
				}
				cancel()
				require.Error(t, <-gone, "the client gave up")
				select {
				case <-p.done:
				case <-time.After(10 * time.Second):
					t.Fatal("the handler never finished")
				}
				require.Equal(t, before+1, p.calls.Load())

				// The record is written right after the handler returns.
				var r *apitest.Resp
				for deadline := time.Now().Add(5 * time.Second); ; {
					r = e.Do("POST", path, nil, "Idempotency-Key", key)
					if r.Status != 409 || time.Now().After(deadline) {
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
				require.Equal(t, 201, r.Status, "%s", r.Body)
				assert.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))
				e.Clock.Set(time.Now().Add(idempotency.Lease + time.Minute))
				defer e.Clock.Set(time.Time{})
				r = e.Do("POST", path, nil, "Idempotency-Key", key)
				require.Equal(t, 201, r.Status, "%s", r.Body)
				assert.Equal(t, "true", r.Header.Get("Idempotent-Replayed"), "after the lease too")
				assert.Equal(t, before+1, p.calls.Load(), "the work never ran twice")
			})
		}
	})
}

// TestInlineRoutes: an inline route's success must come from
// idempotency.Commit; an optional key may be left out.
func TestInlineRoutes(t *testing.T) {
	idemBackends(t, func(t *testing.T, e *apitest.Env, p *idemProbe) {
		e.AllowServerErrors("a route that forgets idempotency.Commit is a 500 by design")
		r := e.Do("POST", "/_test/forgot", nil, "Idempotency-Key", "forgot")
		require.Equal(t, 500, r.Status, "a handler that skips the helper cannot answer 2xx unrecorded")
		assert.Contains(t, apitest.Logs.String(), "without idempotency.Commit")

		r = e.Do("POST", "/_test/inline/x", nil)
		require.Equal(t, 400, r.Status, "IdemInline requires the key")
		r = e.Do("POST", "/_test/inline-optional", nil)
		require.Equal(t, 201, r.Status, "%s", r.Body)
		r = e.Do("POST", "/_test/inline-optional", nil)
		require.Equal(t, 201, r.Status)
		assert.Empty(t, r.Header.Get("Idempotent-Replayed"), "no key: each call runs")
		first := e.Do("POST", "/_test/inline-optional", nil, "Idempotency-Key", "opt")
		again := e.Do("POST", "/_test/inline-optional", nil, "Idempotency-Key", "opt")
		require.Equal(t, 201, again.Status)
		assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, first.Body, again.Body)
		r = e.Do("POST", "/_test/inline-optional", nil, "Idempotency-Key", strings.Repeat("k", 256))
		require.Equal(t, 400, r.Status)
	})
}

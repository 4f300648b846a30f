package httpapi_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/console/merchants"
	"github.com/paygate/paygate/shared/platform/health"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/auth"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// probe is a test-only group exercising decoding, panics and idempotency.
type probe struct {
	calls   atomic.Int64
	release chan struct{} // when set, /_test/slow blocks until closed
	entered chan struct{} // /_test/slow signals here once it holds the key
}

type probeBody struct {
	Name   string `json:"name"`
	Amount struct {
		Value    int64  `json:"value"`
		Currency string `json:"currency"`
	} `json:"amount"`
	Fail bool `json:"fail,omitempty"`
}

func (p *probe) build(*app.Deps) (httpapi.Group, error) {
	handle := func(r *httpapi.Request) (*httpapi.Response, error) {
		var b probeBody
		if err := r.Decode(&b); err != nil {
			return nil, err
		}
		p.calls.Add(1)
		if b.Fail {
			return nil, apierr.Invalidf("fail", "asked to fail")
		}
		return httpapi.Created("probe", map[string]any{"name": b.Name, "n": p.calls.Load()}), nil
	}
	return httpapi.Group{Name: "Probe", Routes: []httpapi.Route{
		{Method: "POST", Path: "/_test/echo", Auth: httpapi.AuthSecret, Handler: handle},
		{Method: "POST", Path: "/_test/idem", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemRequired, Handler: handle},
		{Method: "POST", Path: "/_test/slow", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemRequired, Handler: func(r *httpapi.Request) (*httpapi.Response, error) {
			p.entered <- struct{}{}
			<-p.release
			return handle(r)
		}},
		{Method: "GET", Path: "/_test/panic", Auth: httpapi.AuthSecret, Handler: func(*httpapi.Request) (*httpapi.Response, error) {
			panic("boom")
		}},
		{Method: "POST", Path: "/_test/helper", Auth: httpapi.AuthSecret, TestOnly: true, Handler: handle},
		{Method: "POST", Path: "/_test/dated", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemRequired, Since: "2023-09-01", Handler: handle},
		{Method: "POST", Path: "/_test/big", Auth: httpapi.AuthSecret, MaxBody: 3 << 20, Handler: handle},
	}}, nil
}

func newEnv(t *testing.T) (*apitest.Env, *probe) {
	p := &probe{}
	return apitest.New(t, buildHealth, merchants.BuildMerchants, p.build), p
}

// backends runs f with an environment on the embedded store and on one on
// DynamoDB Local.
func backends(t *testing.T, f func(t *testing.T, e *apitest.Env, p *probe)) {
	t.Run("embedded", func(t *testing.T) {
		e, p := newEnv(t)
		f(t, e, p)
	})
	t.Run("dynamodb", func(t *testing.T) {
		p := &probe{}
		clock := &apitest.Clock{}
		e := apitest.NewWith(t, apitest.Options{Store: dynamotest.New(t, clock.Now), Clock: clock},
			buildHealth, merchants.BuildMerchants, p.build)
		f(t, e, p)
	})
}

func TestHealthNeedsNoKey(t *testing.T) {
	e, _ := newEnv(t)
	r := e.DoKey("", "GET", "/health", nil)
	require.Equal(t, 200, r.Status)
	assert.Equal(t, "ok", r.Map(t)["status"])
}

func TestAuth(t *testing.T) {
	e, _ := newEnv(t)
	t.Run("missing key", func(t *testing.T) {
		r := e.DoKey("", "GET", "/v1/merchants/me", nil)
		require.Equal(t, 401, r.Status)
		assert.Equal(t, "authentication_error", r.Err(t)["type"])
	})
	t.Run("unknown key", func(t *testing.T) {
		r := e.DoKey("sk_test_UnknownUnknownUnknownUnknown12", "GET", "/v1/merchants/me", nil)
		require.Equal(t, 401, r.Status)
	})
	t.Run("bearer prefix", func(t *testing.T) {
		r := e.DoKey("Bearer "+e.Key, "GET", "/v1/merchants/me", nil)
		require.Equal(t, 401, r.Status)
		assert.Contains(t, r.Err(t)["message"], "raw API key")
		assert.Contains(t, r.Err(t)["message"], "without the Bearer prefix")
	})
	t.Run("authorization header", func(t *testing.T) {
		r := e.Do("GET", "/v1/merchants/me", nil)
		require.Equal(t, 200, r.Status)
		assert.Equal(t, e.Account.ID, r.Map(t)["id"])
	})
	t.Run("x-api-key header", func(t *testing.T) {
		r := e.DoKey("", "GET", "/v1/merchants/me", nil, "x-api-key", e.Key)
		require.Equal(t, 200, r.Status)
		assert.Equal(t, e.Account.ID, r.Map(t)["id"])
	})
	t.Run("each key sees its own account", func(t *testing.T) {
		other, key := e.NewAccount(accounts.Live)
		r := e.DoKey(key, "GET", "/v1/merchants/me", nil)
		require.Equal(t, 200, r.Status)
		assert.Equal(t, other.ID, r.Map(t)["id"])
		assert.Equal(t, true, r.Map(t)["livemode"])
	})
	t.Run("client key on a server endpoint", func(t *testing.T) {
		ck := e.NewClientKey("https://shop.example")
		r := e.DoKey(ck, "GET", "/v1/merchants/me", nil, "Origin", "https://shop.example")
		require.Equal(t, 401, r.Status)
	})
}

func TestRevokedKeyFailsOnTheNextRequest(t *testing.T) {
	e, _ := newEnv(t)
	ctx := context.Background()
	k, secret, err := e.Deps.Keys.Create(ctx, e.Account.ID, auth.NewKey{Name: "to revoke"})
	require.NoError(t, err)
	apitest.RememberSecret(secret)
	require.Equal(t, 200, e.DoKey(secret, "GET", "/v1/merchants/me", nil).Status)
	_, err = e.Deps.Keys.Revoke(ctx, e.Account.ID, k.ID)
	require.NoError(t, err)
	require.Equal(t, 401, e.DoKey(secret, "GET", "/v1/merchants/me", nil).Status)
	require.Equal(t, 200, e.Do("GET", "/v1/merchants/me", nil).Status, "other keys keep working")
}

func TestRolledKeyExpires(t *testing.T) {
	e, _ := newEnv(t)
	ctx := context.Background()
	old, oldSecret, err := e.Deps.Keys.Create(ctx, e.Account.ID, auth.NewKey{Name: "rolling"})
	require.NoError(t, err)
	apitest.RememberSecret(oldSecret)
	start := time.Now()
	e.Clock.Set(start)
	_, newSecret, err := e.Deps.Keys.Roll(ctx, e.Account.ID, old.ID, start.Add(time.Hour))
	require.NoError(t, err)
	apitest.RememberSecret(newSecret)
	require.Equal(t, 200, e.DoKey(oldSecret, "GET", "/v1/merchants/me", nil).Status, "old key valid until its expiry")
	require.Equal(t, 200, e.DoKey(newSecret, "GET", "/v1/merchants/me", nil).Status)
	e.Clock.Set(start.Add(time.Hour + time.Second))
	require.Equal(t, 401, e.DoKey(oldSecret, "GET", "/v1/merchants/me", nil).Status, "expired rolled key")
	require.Equal(t, 200, e.DoKey(newSecret, "GET", "/v1/merchants/me", nil).Status)
}

func TestKeysAreStoredOnlyHashed(t *testing.T) {
	e, _ := newEnv(t)
	ctx := context.Background()
	keys, err := e.Deps.Keys.List(ctx, e.Account.ID)
	require.NoError(t, err)
	require.NotEmpty(t, keys)
	// Every stored item of the account partition and the hash record: no secret.
	p, err := e.Deps.Store.Query(ctx, store.Query{Table: store.TableAccounts, PK: "acct#" + e.Account.ID, Limit: 100})
	require.NoError(t, err)
	require.NotEmpty(t, p.Items)
	hashItem, err := e.Deps.Store.Get(ctx, store.Key{Table: store.TableAccounts, PK: "key#" + auth.Hash(e.Key), SK: "key"})
	require.NoError(t, err)
	random := e.Key[strings.LastIndex(e.Key, "_")+1:]
	for _, it := range append(p.Items, hashItem) {
		assert.NotContains(t, string(it.Data), random)
		assert.NotContains(t, it.PK+it.SK, random)
	}
	assert.Contains(t, string(hashItem.Data), auth.Hash(e.Key))
}

func TestVersions(t *testing.T) {
	e, _ := newEnv(t)
	t.Run("unknown version lists the known ones", func(t *testing.T) {
		r := e.Do("GET", "/v1/merchants/me", nil, "Service-Version", "2022-01-01")
		require.Equal(t, 400, r.Status)
		msg := r.Err(t)["message"].(string)
		for _, v := range []string{"2024-01-15", "2023-09-01", "2023-06-01"} {
			assert.Contains(t, msg, v)
		}
		assert.Equal(t, "Service-Version", r.Err(t)["param"])
	})
	t.Run("every response echoes the version", func(t *testing.T) {
		for _, v := range []string{"2024-01-15", "2023-09-01", "2023-06-01"} {
			r := e.Do("GET", "/v1/merchants/me", nil, "Service-Version", v)
			require.Equal(t, 200, r.Status)
			assert.Equal(t, v, r.Header.Get("Service-Version"))
		}
		assert.Equal(t, "2024-01-15", e.Do("GET", "/v1/merchants/me", nil).Header.Get("Service-Version"))
		assert.Equal(t, "2023-06-01", e.DoKey("", "GET", "/health", nil, "Service-Version", "2023-06-01").Header.Get("Service-Version"))
	})
	t.Run("legacy error body for 2023-06-01", func(t *testing.T) {
		r := e.DoKey("", "GET", "/v1/merchants/me", nil, "Service-Version", "2023-06-01")
		require.Equal(t, 401, r.Status)
		m := r.Map(t)
		assert.Nil(t, m["error"])
		assert.Equal(t, "apiError", m["type"])
		assert.EqualValues(t, 3, m["code"])
		assert.NotEmpty(t, m["message"])
		r = e.Do("GET", "/v1/nothing", nil, "Service-Version", "2023-06-01")
		require.Equal(t, 404, r.Status)
		assert.EqualValues(t, 4, r.Map(t)["code"])
	})
	t.Run("current error body for 2024-01-15", func(t *testing.T) {
		r := e.DoKey("", "GET", "/v1/merchants/me", nil, "Service-Version", "2024-01-15")
		require.Equal(t, 401, r.Status)
		er := r.Err(t)
		require.NotNil(t, er)
		assert.Equal(t, "authentication_error", er["type"])
		assert.Equal(t, r.Header.Get("Request-Id"), er["request_id"])
	})
	t.Run("metadata appears from 2024-01-15", func(t *testing.T) {
		assert.Contains(t, e.Do("GET", "/v1/merchants/me", nil, "Service-Version", "2024-01-15").Map(t), "metadata")
		assert.NotContains(t, e.Do("GET", "/v1/merchants/me", nil, "Service-Version", "2023-09-01").Map(t), "metadata")
	})
	t.Run("account default applies without the header", func(t *testing.T) {
		a, key := e.NewAccount(accounts.Test)
		require.NoError(t, e.Deps.Keys.SetDefaultVersion(context.Background(), a.ID, "2023-06-01"))
		r := e.DoKey(key, "GET", "/v1/merchants/me", nil)
		require.Equal(t, 200, r.Status)
		assert.Equal(t, "2023-06-01", r.Header.Get("Service-Version"))
		assert.NotContains(t, r.Map(t), "metadata")
		r = e.DoKey(key, "GET", "/v1/merchants/me", nil, "Service-Version", "2024-01-15")
		assert.Equal(t, "2024-01-15", r.Header.Get("Service-Version"), "the header wins over the default")
	})
}

// TestRouteSince: a route declared from a version answers a 400 naming the
// version it needs to a request at an older one, from the header or the
// account's default, in that version's error body, before the handler runs
// or the Idempotency-Key is claimed; at the version and after it runs.
func TestRouteSince(t *testing.T) {
	e, p := newEnv(t)
	body := map[string]any{"name": "x"}
	r := e.Do("POST", "/_test/dated", body, "Service-Version", "2023-06-01", "Idempotency-Key", "dated-1")
	require.Equal(t, 400, r.Status, string(r.Body))
	m := r.Map(t)
	assert.Equal(t, "Service-Version", m["source"], "the legacy body names the header")
	assert.Contains(t, m["message"], "2023-09-01")
	assert.Contains(t, m["message"], "/_test/dated")
	assert.Zero(t, p.calls.Load(), "the handler never ran")

	a, key := e.NewAccount(accounts.Test)
	require.NoError(t, e.Deps.Keys.SetDefaultVersion(context.Background(), a.ID, "2023-06-01"))
	r = e.DoKey(key, "POST", "/_test/dated", body, "Idempotency-Key", "dated-1")
	require.Equal(t, 400, r.Status, string(r.Body))
	assert.Contains(t, r.Map(t)["message"], "2023-09-01")

	for _, v := range []string{"2023-09-01", "2024-01-15"} {
		r = e.DoKey(key, "POST", "/_test/dated", body, "Idempotency-Key", "dated-"+v, "Service-Version", v)
		require.Equal(t, 201, r.Status, string(r.Body))
	}
	// The refused call claimed nothing: the same key runs at a version
	// that has the route.
	r = e.DoKey(key, "POST", "/_test/dated", body, "Idempotency-Key", "dated-1", "Service-Version", "2023-09-01")
	require.Equal(t, 201, r.Status, string(r.Body))
	r = e.Do("POST", "/_test/dated", body, "Service-Version", "2024-01-15", "Idempotency-Key", "dated-2")
	require.Equal(t, 201, r.Status, string(r.Body))
	assert.EqualValues(t, 4, p.calls.Load())
}

// TestRouteBodyLimit: a route's own body limit replaces the 1 MiB one, in
// both directions: 2 MiB passes there and is a 413 elsewhere; over its limit
// is a 413 too.
func TestRouteBodyLimit(t *testing.T) {
	e, _ := newEnv(t)
	two := `{"name": "` + strings.Repeat("a", 2<<20) + `"}`
	r := e.Do("POST", "/_test/echo", two)
	require.Equal(t, 413, r.Status)
	r = e.Do("POST", "/_test/big", two)
	require.NotEqual(t, 413, r.Status, "2 MiB is under the route's 3 MiB")
	assert.Equal(t, 400, r.Status, "and reaches the decoder (name is over its maximum): %s", r.Body)
	r = e.Do("POST", "/_test/big", `{"name": "`+strings.Repeat("a", 3<<20)+`"}`)
	require.Equal(t, 413, r.Status)
	assert.Contains(t, r.Err(t)["message"], "3145728")
}

func TestBadInput(t *testing.T) {
	e, p := newEnv(t)
	cases := []struct {
		name, body, param string
	}{
		{"malformed JSON", `{"name": "x",`, ""},
		{"not an object", `[1,2]`, ""},
		{"unknown field", `{"name": "x", "colour": "red"}`, "colour"},
		{"wrong type", `{"name": 12}`, "name"},
		{"wrong nested type", `{"amount": {"value": "100"}}`, "amount.value"},
		{"float for an integer", `{"amount": {"value": 10.5}}`, "amount.value"},
		{"trailing data", `{"name": "x"} {"name": "y"}`, ""},
		{"empty body", ``, ""},
		{"case-variant name", `{"Name": "x"}`, "Name"},
		{"case-variant nested name", `{"amount": {"VALUE": 1}}`, "amount.VALUE"},
		{"duplicate name", `{"name": "x", "name": "y"}`, "name"},
		{"duplicate nested name", `{"amount": {"value": 100, "value": 1}}`, "amount.value"},
		{"null body", `null`, ""},
		{"null object", `{"amount": null}`, "amount"},
		{"null field", `{"name": null}`, "name"},
		{"integer as 761.0", `{"amount": {"value": 761.0}}`, "amount.value"},
		{"int64 overflow", `{"amount": {"value": 9223372036854775808}}`, "amount.value"},
		{"int64 underflow", `{"amount": {"value": -9223372036854775809}}`, "amount.value"},
		{"NUL", `{"name": "a\u0000b"}`, "name"},
		{"C0 control", `{"name": "a\u0007"}`, "name"},
		{"invalid UTF-8", "{\"name\": \"a\xfe\"}", "name"},
		{"lone surrogate", `{"name": "\udfff"}`, "name"},
		{"bidi override", "{\"name\": \"abc\u202edcba\"}", "name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", "/_test/echo", c.body, "Content-Type", "application/json")
			require.Equal(t, 400, r.Status, string(r.Body))
			er := r.Err(t)
			assert.Equal(t, "invalid_request_error", er["type"])
			if c.param != "" {
				assert.Equal(t, c.param, er["param"])
				assert.Contains(t, er["message"], c.param)
			}
		})
	}
	require.Zero(t, p.calls.Load(), "no bad request reached the handler's work")

	t.Run("2 MiB body is 413", func(t *testing.T) {
		big := `{"name": "` + strings.Repeat("a", 2<<20) + `"}`
		r := e.Do("POST", "/_test/echo", big)
		require.Equal(t, 413, r.Status)
	})
	t.Run("text/plain is 415", func(t *testing.T) {
		r := e.Do("POST", "/_test/echo", `{"name": "x"}`, "Content-Type", "text/plain")
		require.Equal(t, 415, r.Status)
	})
	t.Run("charset parameter is fine", func(t *testing.T) {
		r := e.Do("POST", "/_test/echo", `{"name": "x"}`, "Content-Type", "application/json; charset=utf-8")
		require.Equal(t, 201, r.Status)
	})
}

func TestRouting(t *testing.T) {
	e, _ := newEnv(t)
	r := e.Do("GET", "/v1/does-not-exist", nil)
	require.Equal(t, 404, r.Status)
	assert.Equal(t, "invalid_request_error", r.Err(t)["type"])
	r = e.Do("DELETE", "/v1/merchants/me", nil)
	require.Equal(t, 405, r.Status)
	assert.Equal(t, "GET", r.Header.Get("Allow"))
	assert.Equal(t, "method_not_allowed", r.Err(t)["code"])
}

func TestPanicIsA500WithTheRequestID(t *testing.T) {
	e, _ := newEnv(t)
	e.AllowServerErrors("a handler panics on purpose")
	r := e.Do("GET", "/_test/panic", nil)
	require.Equal(t, 500, r.Status)
	id := r.Header.Get("Request-Id")
	assert.Equal(t, id, r.Err(t)["request_id"])
	assert.NotContains(t, string(r.Body), "boom", "internal causes are not echoed")
	assert.Contains(t, apitest.Logs.String(), id)
	// The server still serves.
	require.Equal(t, 200, e.Do("GET", "/v1/merchants/me", nil).Status)
}

func TestTestOnlyRoutes(t *testing.T) {
	e, _ := newEnv(t)
	require.Equal(t, 201, e.Do("POST", "/_test/helper", `{"name":"x"}`).Status)
	_, live := e.NewAccount(accounts.Live)
	r := e.DoKey(live, "POST", "/_test/helper", `{"name":"x"}`)
	require.Equal(t, 403, r.Status)
	assert.Equal(t, "test_mode_only", r.Err(t)["code"])
}

func TestIdempotency(t *testing.T) {
	backends(t, func(t *testing.T, e *apitest.Env, p *probe) {
		t.Run("key required", func(t *testing.T) {
			r := e.Do("POST", "/_test/idem", `{"name":"a"}`)
			require.Equal(t, 400, r.Status)
			assert.Equal(t, "Idempotency-Key", r.Err(t)["param"])
		})
		t.Run("key too long", func(t *testing.T) {
			r := e.Do("POST", "/_test/idem", `{"name":"a"}`, "Idempotency-Key", strings.Repeat("k", 256))
			require.Equal(t, 400, r.Status)
		})
		t.Run("replay, mismatch", func(t *testing.T) {
			first := e.Do("POST", "/_test/idem", `{"name":"a"}`, "Idempotency-Key", "k1")
			require.Equal(t, 201, first.Status)
			again := e.Do("POST", "/_test/idem", `{ "name" : "a" }`, "Idempotency-Key", "k1")
			require.Equal(t, 201, again.Status)
			assert.Equal(t, first.Body, again.Body)
			assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
			other := e.Do("POST", "/_test/idem", `{"name":"b"}`, "Idempotency-Key", "k1")
			require.Equal(t, 422, other.Status)
			// Same key, other account: its own scope.
			_, key := e.NewAccount(accounts.Test)
			require.Equal(t, 201, e.DoKey(key, "POST", "/_test/idem", `{"name":"b"}`, "Idempotency-Key", "k1").Status)
		})
		t.Run("validation failures are not stored", func(t *testing.T) {
			r := e.Do("POST", "/_test/idem", `{"name":"a","fail":true}`, "Idempotency-Key", "k2")
			require.Equal(t, 400, r.Status)
			r = e.Do("POST", "/_test/idem", `{"name":"a","fail":true}`, "Idempotency-Key", "k2")
			require.Equal(t, 400, r.Status)
			assert.Empty(t, r.Header.Get("Idempotent-Replayed"))
		})
		t.Run("in flight is 409", func(t *testing.T) {
			p.release = make(chan struct{})
			p.entered = make(chan struct{}, 1)
			var once sync.Once
			release := func() { once.Do(func() { close(p.release) }) }
			defer release() // never leave the handler blocked, even on failure
			done := make(chan *apitest.Resp, 1)
			go func() { done <- e.Do("POST", "/_test/slow", `{"name":"s"}`, "Idempotency-Key", "k3") }()
			select {
			case <-p.entered: // the first request now holds the key
			case <-time.After(5 * time.Second):
				t.Fatal("the first request never reached the handler")
			}
			for i := 0; i < 3; i++ {
				r := e.Do("POST", "/_test/slow", `{"name":"s"}`, "Idempotency-Key", "k3")
				require.Equal(t, 409, r.Status)
				assert.Equal(t, "idempotency_in_flight", r.Err(t)["code"])
			}
			release()
			require.Equal(t, 201, (<-done).Status)
			r := e.Do("POST", "/_test/slow", `{"name":"s"}`, "Idempotency-Key", "k3")
			require.Equal(t, 201, r.Status)
			assert.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))
		})
		t.Run("50 concurrent requests with one key run once", func(t *testing.T) {
			before := p.calls.Load()
			var wg sync.WaitGroup
			statuses := make(chan int, 50)
			bodies := make(chan string, 50)
			for i := 0; i < 50; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := e.Do("POST", "/_test/idem", `{"name":"c"}`, "Idempotency-Key", "k4")
					statuses <- r.Status
					if r.Status == 201 {
						bodies <- string(r.Body)
					}
				}()
			}
			wg.Wait()
			close(statuses)
			close(bodies)
			for s := range statuses {
				assert.Contains(t, []int{201, 409}, s)
			}
			var first string
			for b := range bodies {
				if first == "" {
					first = b
				}
				assert.Equal(t, first, b, "every success is the same result")
			}
			assert.Equal(t, before+1, p.calls.Load(), "the work ran exactly once")
		})
	})
}

// TestPathIDIs400ForAnythingButAnID: a path id that is not a UUID is a 400
// naming the parameter, never a store lookup.
func TestPathIDIs400ForAnythingButAnID(t *testing.T) {
	for v, ok := range map[string]bool{"01a2106a-fa44-7326-98f9-514281674bdb": true, "": false, "nope": false, "01a2106a-fa44-7326-98f9-514281674bdb0": false, "../x": false} {
		req := httptest.NewRequest("GET", "/", nil)
		req.SetPathValue("id", v)
		id, err := (&httpapi.Request{HTTP: req}).PathID("id")
		if ok {
			require.NoError(t, err, v)
			assert.Equal(t, v, id)
			continue
		}
		e := apierr.As(err)
		assert.Equal(t, 400, e.Kind.Status(), v)
		assert.Equal(t, "id", e.Param, v)
	}
}

// buildHealth is the health group as the local gateway builds it.
func buildHealth(*app.Deps) (httpapi.Group, error) { return health.Group(), nil }

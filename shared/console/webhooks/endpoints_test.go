package webhooks_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

const hookURL = "https://hooks.example.com/paygate"

// create registers an endpoint with key and returns the answer, remembering
// its secret for the run's log scan.
func create(t *testing.T, e *apitest.Env, key string, body map[string]any, status int, headers ...string) map[string]any {
	t.Helper()
	r := e.DoKey(key, "POST", "/v1/webhook-endpoints", body, headers...)
	require.Equal(t, status, r.Status, "%s", r.Body)
	m := r.Map(t)
	if s, ok := m["secret"].(string); ok {
		apitest.RememberSecret(s)
	}
	return m
}

func endpointBody() map[string]any {
	return map[string]any{"url": hookURL, "enabled_events": []any{"order.completed", "payment.authorised"}}
}

func listIDs(t *testing.T, e *apitest.Env, key string) []string {
	t.Helper()
	r := e.DoKey(key, "GET", "/v1/webhook-endpoints?limit=100", nil)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	var l struct {
		Data []map[string]any `json:"data"`
	}
	r.JSON(t, &l)
	var out []string
	for _, d := range l.Data {
		require.NotContains(t, d, "secret", "a list never shows a secret")
		out = append(out, d["id"].(string))
	}
	return out
}

func TestEndpointLifecycle(t *testing.T) {
	both(t, func(t *testing.T, e *apitest.Env) {
		body := endpointBody()
		body["api_version"], body["description"], body["metadata"] = "2023-09-01", "orders feed", map[string]any{"team": "ops"}
		c := create(t, e, e.Key, body, 201)
		id := c["id"].(string)
		assert.Regexp(t, `^we_[0-9a-f]{32}$`, id)
		assert.Regexp(t, `^whsec_[0-9a-f]{64}$`, c["secret"])
		assert.Equal(t, []any{"order.completed", "payment.authorised"}, c["enabled_events"])
		assert.Equal(t, "2023-09-01", c["api_version"])
		assert.Equal(t, false, c["disabled"])
		assert.Equal(t, false, c["livemode"])
		assert.Equal(t, map[string]any{"team": "ops"}, c["metadata"])

		g := e.Do("GET", "/v1/webhook-endpoints/"+id, nil)
		require.Equal(t, 200, g.Status, "%s", g.Body)
		got := g.Map(t)
		assert.NotContains(t, got, "secret", "the secret is shown once")
		assert.NotContains(t, string(g.Body), c["secret"].(string))
		assert.Equal(t, hookURL, got["url"])

		second := create(t, e, e.Key, map[string]any{"url": "http://localhost:9000/hook", "enabled_events": []any{"*"}}, 201)
		assert.Nil(t, second["api_version"])
		assert.Equal(t, []string{second["id"].(string), id}, listIDs(t, e, e.Key), "newest first")

		u := e.Do("POST", "/v1/webhook-endpoints/"+id, map[string]any{
			"url": "https://other.example.com/h", "enabled_events": []any{"*"}, "api_version": "", "disabled": true,
			"metadata": map[string]any{"a": "b"},
		})
		require.Equal(t, 200, u.Status, "%s", u.Body)
		up := u.Map(t)
		assert.Equal(t, "https://other.example.com/h", up["url"])
		assert.Equal(t, []any{"*"}, up["enabled_events"])
		assert.Nil(t, up["api_version"])
		assert.Equal(t, true, up["disabled"])
		assert.Equal(t, "orders feed", up["description"], "an absent field stays")
		assert.Equal(t, map[string]any{"a": "b"}, up["metadata"])
		assert.NotContains(t, up, "secret")

		d := e.Do("DELETE", "/v1/webhook-endpoints/"+id, nil)
		require.Equal(t, 200, d.Status, "%s", d.Body)
		assert.Equal(t, map[string]any{"id": id, "object": "webhook_endpoint", "deleted": true}, d.Map(t))
		assert.Equal(t, 404, e.Do("GET", "/v1/webhook-endpoints/"+id, nil).Status)
		assert.Equal(t, 404, e.Do("DELETE", "/v1/webhook-endpoints/"+id, nil).Status)
		assert.Equal(t, []string{second["id"].(string)}, listIDs(t, e, e.Key))
	})
}

// TestCreateBadInput: every refusal is a 400 naming the field, and nothing
// is stored: no endpoint, and the count still lets 16 be created.
func TestCreateBadInput(t *testing.T) {
	both(t, func(t *testing.T, e *apitest.Env) {
		with := func(k string, v any) map[string]any {
			b := endpointBody()
			if v == nil {
				delete(b, k)
			} else {
				b[k] = v
			}
			return b
		}
		md := map[string]any{}
		for i := range 51 {
			md[fmt.Sprint("k", i)] = "v"
		}
		cases := []struct {
			name        string
			body        any
			code, param string
		}{
			{"no url", with("url", nil), "parameter_missing", "url"},
			{"no events", with("enabled_events", nil), "parameter_missing", "enabled_events"},
			{"empty events", with("enabled_events", []any{}), "", "enabled_events"},
			{"unknown event type", with("enabled_events", []any{"order.completed", "order.shipped"}), "event_type_unknown", "enabled_events"},
			{"wildcard with others", with("enabled_events", []any{"*", "order.completed"}), "", "enabled_events"},
			{"events not a list", with("enabled_events", "order.completed"), "", "enabled_events"},
			{"unknown version", with("api_version", "2020-01-01"), "", "api_version"},
			{"description too long", with("description", strings.Repeat("d", 501)), "", "description"},
			{"too much metadata", with("metadata", md), "", "metadata"},
			{"unknown field", with("secret", "whsec_mine"), "parameter_unknown", "secret"},
			{"ftp url", with("url", "ftp://hooks.example.com/"), "url_invalid", "url"},
			{"metadata address", with("url", "http://169.254.169.254/latest/meta-data"), "url_invalid", "url"},
			{"url too long", with("url", hookURL+"/"+strings.Repeat("a", 2048)), "", "url"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := e.Do("POST", "/v1/webhook-endpoints", c.body, "Idempotency-Key", uuid.NewString())
				require.Equal(t, 400, r.Status, "%s", r.Body)
				er := r.Err(t)
				assert.Equal(t, c.param, er["param"], "%s", r.Body)
				if c.code != "" {
					assert.Equal(t, c.code, er["code"], "%s", r.Body)
				}
			})
		}
		assert.Empty(t, listIDs(t, e, e.Key), "nothing stored on failure")
		for range webhooks.MaxEndpoints {
			create(t, e, e.Key, endpointBody(), 201)
		}
	})
}

func TestUpdateAndRollBadInput(t *testing.T) {
	both(t, func(t *testing.T, e *apitest.Env) {
		c := create(t, e, e.Key, endpointBody(), 201)
		id := c["id"].(string)
		before := e.Do("GET", "/v1/webhook-endpoints/"+id, nil).Body
		cases := []struct {
			name, path  string
			body        any
			status      int
			code, param string
		}{
			{"unknown event", id, map[string]any{"enabled_events": []any{"payment.shipped"}}, 400, "event_type_unknown", "enabled_events"},
			{"empty events", id, map[string]any{"enabled_events": []any{}}, 400, "", "enabled_events"},
			{"refused url", id, map[string]any{"url": "https://[fd00:ec2::254]/"}, 400, "url_invalid", "url"},
			{"disabled not bool", id, map[string]any{"disabled": "yes"}, 400, "", "disabled"},
			{"unknown version", id, map[string]any{"api_version": "2099-01-01"}, 400, "", "api_version"},
			{"no body", id, nil, 400, "body_missing", ""},
			{"missing", "we_0190f3a2b4c47d1e8a0b1c2d3e4f5a6b", map[string]any{"disabled": true}, 404, "", ""},
			{"malformed id", "we_nope", map[string]any{"disabled": true}, 404, "", ""},
			{"roll negative", id + "/roll-secret", map[string]any{"expire_old_after": -1}, 400, "", "expire_old_after"},
			{"roll too long", id + "/roll-secret", map[string]any{"expire_old_after": 604801}, 400, "", "expire_old_after"},
			{"roll fraction", id + "/roll-secret", map[string]any{"expire_old_after": 1.5}, 400, "", "expire_old_after"},
			{"roll unknown field", id + "/roll-secret", map[string]any{"expire_now": true}, 400, "parameter_unknown", "expire_now"},
			{"roll missing", "we_0190f3a2b4c47d1e8a0b1c2d3e4f5a6b/roll-secret", map[string]any{}, 404, "", ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := e.Do("POST", "/v1/webhook-endpoints/"+c.path, c.body, "Idempotency-Key", uuid.NewString())
				require.Equal(t, c.status, r.Status, "%s", r.Body)
				er := r.Err(t)
				if c.param != "" {
					assert.Equal(t, c.param, er["param"], "%s", r.Body)
				}
				if c.code != "" {
					assert.Equal(t, c.code, er["code"], "%s", r.Body)
				}
			})
		}
		assert.JSONEq(t, string(before), string(e.Do("GET", "/v1/webhook-endpoints/"+id, nil).Body), "nothing changed")
		for _, path := range []string{"/v1/webhook-endpoints/we_x", "/v1/webhook-endpoints/" + strings.Repeat("a", 300)} {
			assert.Equal(t, 404, e.Do("GET", path, nil).Status, path)
		}
	})
}

// TestURLRules: live keys register https on public addresses only; test
// keys also http and loopback; link-local, metadata and unspecified
// addresses are refused for both.
func TestURLRules(t *testing.T) {
	e := apitest.New(t, buildEndpoints, buildEvents)
	_, liveKey := e.NewAccount(accounts.Live)
	cases := []struct {
		url        string
		live, test bool
	}{
		{"https://hooks.example.com/x", true, true},
		{"https://93.184.215.14/x", true, true},
		{"http://hooks.example.com/x", false, true},
		{"http://127.0.0.1:8081/hook", false, true},
		{"https://localhost/hook", false, true},
		{"http://[::1]:9000/hook", false, true},
		{"https://10.1.2.3/x", false, false},
		{"https://169.254.169.254/latest/meta-data", false, false},
		{"http://169.254.0.1/", false, false},
		{"https://[fe80::1]/", false, false},
		{"https://[fd00:ec2::254]/", false, false},
		{"https://0.0.0.0/", false, false},
		{"https://[::]/", false, false},
		{"https://[::ffff:169.254.169.254]/", false, false},
	}
	for _, c := range cases {
		for _, k := range []struct {
			key   string
			allow bool
			mode  string
		}{{liveKey, c.live, "live"}, {e.Key, c.test, "test"}} {
			r := e.DoKey(k.key, "POST", "/v1/webhook-endpoints", map[string]any{"url": c.url, "enabled_events": []any{"*"}})
			if k.allow {
				require.Equal(t, 201, r.Status, "%s %s: %s", k.mode, c.url, r.Body)
				m := r.Map(t)
				apitest.RememberSecret(m["secret"].(string))
				assert.Equal(t, k.mode == "live", m["livemode"])
				continue
			}
			require.Equal(t, 400, r.Status, "%s %s: %s", k.mode, c.url, r.Body)
			assert.Equal(t, "url_invalid", r.Err(t)["code"])
		}
	}
	// An update is held to the same rules.
	id := create(t, e, liveKey, endpointBody(), 201)["id"].(string)
	r := e.DoKey(liveKey, "POST", "/v1/webhook-endpoints/"+id, map[string]any{"url": "http://127.0.0.1:9000/"})
	require.Equal(t, 400, r.Status, "%s", r.Body)
	assert.Equal(t, "url", r.Err(t)["param"])
}

func TestCreateIdempotentReplay(t *testing.T) {
	both(t, func(t *testing.T, e *apitest.Env) {
		key := uuid.NewString()
		first := e.Do("POST", "/v1/webhook-endpoints", endpointBody(), "Idempotency-Key", key)
		require.Equal(t, 201, first.Status, "%s", first.Body)
		apitest.RememberSecret(first.Map(t)["secret"].(string))
		again := e.Do("POST", "/v1/webhook-endpoints", endpointBody(), "Idempotency-Key", key)
		require.Equal(t, 201, again.Status, "%s", again.Body)
		assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
		assert.JSONEq(t, string(first.Body), string(again.Body), "the replay carries the same endpoint and secret")
		other := endpointBody()
		other["url"] = "https://elsewhere.example.com/"
		r := e.Do("POST", "/v1/webhook-endpoints", other, "Idempotency-Key", key)
		assert.Equal(t, 422, r.Status, "%s", r.Body)
		assert.Len(t, listIDs(t, e, e.Key), 1, "one endpoint for one key")

		// Roll-secret: the replay returns the first new secret; the secret
		// was rolled once (the old one is the created one, not the first new).
		id := first.Map(t)["id"].(string)
		rk := uuid.NewString()
		r1 := e.Do("POST", "/v1/webhook-endpoints/"+id+"/roll-secret", map[string]any{"expire_old_after": 60}, "Idempotency-Key", rk)
		require.Equal(t, 200, r1.Status, "%s", r1.Body)
		apitest.RememberSecret(r1.Map(t)["secret"].(string))
		r2 := e.Do("POST", "/v1/webhook-endpoints/"+id+"/roll-secret", map[string]any{"expire_old_after": 60}, "Idempotency-Key", rk)
		require.Equal(t, 200, r2.Status, "%s", r2.Body)
		assert.Equal(t, "true", r2.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, r1.Map(t)["secret"], r2.Map(t)["secret"])
		svc := webhooks.New(e.Deps.Store, e.Clock.Now)
		ep, err := svc.Get(context.Background(), e.Account.ID, id)
		require.NoError(t, err)
		ep, err = svc.Opened(context.Background(), ep) // stored sealed
		require.NoError(t, err)
		assert.Equal(t, r1.Map(t)["secret"], ep.Secret)
		assert.Equal(t, first.Map(t)["secret"], ep.PrevSecret)
	})
}

func TestOtherAccountsEndpointIs404(t *testing.T) {
	both(t, func(t *testing.T, e *apitest.Env) {
		id := create(t, e, e.Key, endpointBody(), 201)["id"].(string)
		_, other := e.NewAccount(accounts.Test)
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{"GET", "/v1/webhook-endpoints/" + id, nil},
			{"POST", "/v1/webhook-endpoints/" + id, map[string]any{"disabled": true}},
			{"POST", "/v1/webhook-endpoints/" + id + "/roll-secret", map[string]any{}},
			{"DELETE", "/v1/webhook-endpoints/" + id, nil},
		} {
			r := e.DoKey(other, c.method, c.path, c.body)
			assert.Equal(t, 404, r.Status, "%s %s: %s", c.method, c.path, r.Body)
		}
		assert.Empty(t, listIDs(t, e, other))
		g := e.Do("GET", "/v1/webhook-endpoints/"+id, nil)
		require.Equal(t, 200, g.Status)
		assert.Equal(t, false, g.Map(t)["disabled"], "the other account changed nothing")
	})
}

// TestEndpointLimit: 16 per account; the 17th is a 400 that stores
// nothing; a delete frees a place. Under concurrency, exactly 16 of many
// racing creates succeed.
func TestEndpointLimit(t *testing.T) {
	both(t, func(t *testing.T, e *apitest.Env) {
		var ids []string
		for range webhooks.MaxEndpoints {
			ids = append(ids, create(t, e, e.Key, endpointBody(), 201)["id"].(string))
		}
		r := e.Do("POST", "/v1/webhook-endpoints", endpointBody(), "Idempotency-Key", uuid.NewString())
		require.Equal(t, 400, r.Status, "%s", r.Body)
		assert.Equal(t, "webhook_endpoint_limit", r.Err(t)["code"])
		assert.Len(t, listIDs(t, e, e.Key), webhooks.MaxEndpoints)
		require.Equal(t, 200, e.Do("DELETE", "/v1/webhook-endpoints/"+ids[3], nil).Status)
		create(t, e, e.Key, endpointBody(), 201)
		r = e.Do("POST", "/v1/webhook-endpoints", endpointBody())
		assert.Equal(t, 400, r.Status, "%s", r.Body)

		// Concurrent creates on a fresh account.
		acc, key := e.NewAccount(accounts.Test)
		const racers = 40
		var wg sync.WaitGroup
		var mu sync.Mutex
		statuses := map[int]int{}
		for range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					r := e.DoKey(key, "POST", "/v1/webhook-endpoints", endpointBody(), "Idempotency-Key", uuid.NewString())
					if r.Status == 409 || r.Status == 503 {
						continue // a lost transaction race: retried, as clients are told to
					}
					if r.Status == 201 {
						var m map[string]any
						if r.JSON(t, &m); m["secret"] != nil {
							apitest.RememberSecret(m["secret"].(string))
						}
					}
					mu.Lock()
					statuses[r.Status]++
					mu.Unlock()
					return
				}
			}()
		}
		wg.Wait()
		assert.Equal(t, map[int]int{201: webhooks.MaxEndpoints, 400: racers - webhooks.MaxEndpoints}, statuses)
		assert.Len(t, listIDs(t, e, key), webhooks.MaxEndpoints)
		// The count agrees with the records.
		it, err := e.Deps.Store.Get(context.Background(), store.Key{Table: store.TableAccounts, PK: "whepcount#" + acc.ID, SK: "n"})
		require.NoError(t, err)
		assert.EqualValues(t, webhooks.MaxEndpoints, it.N)
	})
}

// inEnv builds the endpoints group as a function whose ENVIRONMENT is env.
func inEnv(env string) apitest.Builder {
	return func(d *app.Deps) (httpapi.Group, error) {
		d.Config.Environment = env
		return webhooks.BuildWebhookEndpoints(d)
	}
}

// TestURLRulesByEnvironmentAndPort: loopback (and bare local names) only
// where ENVIRONMENT is local or unset; live URLs on port 443 or 1024-65535
// only, on create and update alike, each refusal a 400 naming url.
func TestURLRulesByEnvironmentAndPort(t *testing.T) {
	for _, env := range []string{"", "local", "dev", "prod"} {
		t.Run("env="+env, func(t *testing.T) {
			e := apitest.New(t, inEnv(env), buildEvents)
			_, liveKey := e.NewAccount(accounts.Live)
			local := env == "" || env == "local"
			cases := []struct {
				url        string
				live, test bool
			}{
				{"http://127.0.0.1:8081/hook", false, local},
				{"https://localhost/hook", false, local},
				{"http://[::1]:9000/hook", false, local},
				{"http://receiver:9000/hook", false, local},
				{"https://10.1.2.3/x", false, false},
				{"https://169.254.169.254/", false, false},
				{"https://hooks.example.com/x", true, true},
				{"https://hooks.example.com:443/x", true, true},
				{"https://hooks.example.com:1024/x", true, true},
				{"https://hooks.example.com:65535/x", true, true},
				{"https://hooks.example.com:1023/x", false, true},
				{"https://hooks.example.com:22/x", false, true},
				{"https://93.184.215.14:25/x", false, true},
				{"http://hooks.example.com:80/x", false, true},
			}
			liveID := create(t, e, liveKey, endpointBody(), 201)["id"].(string)
			testID := create(t, e, e.Key, endpointBody(), 201)["id"].(string)
			for _, c := range cases {
				for _, k := range []struct {
					key, id string
					allow   bool
					mode    string
				}{{liveKey, liveID, c.live, "live"}, {e.Key, testID, c.test, "test"}} {
					for _, path := range []string{"/v1/webhook-endpoints", "/v1/webhook-endpoints/" + k.id} {
						r := e.DoKey(k.key, "POST", path, map[string]any{"url": c.url, "enabled_events": []any{"*"}})
						if k.allow {
							require.Contains(t, []int{200, 201}, r.Status, "%s %s %s: %s", k.mode, path, c.url, r.Body)
							if s, ok := r.Map(t)["secret"].(string); ok {
								apitest.RememberSecret(s)
							}
							continue
						}
						require.Equal(t, 400, r.Status, "%s %s %s: %s", k.mode, path, c.url, r.Body)
						assert.Equal(t, "url_invalid", r.Err(t)["code"])
						assert.Equal(t, "url", r.Err(t)["param"])
					}
				}
				// Keep under the account's endpoint limit.
				for _, k := range []string{liveKey, e.Key} {
					for _, id := range listIDs(t, e, k) {
						if id != liveID && id != testID {
							require.Equal(t, 200, e.DoKey(k, "DELETE", "/v1/webhook-endpoints/"+id, nil).Status)
						}
					}
				}
			}
		})
	}
}

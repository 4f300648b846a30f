package checkout_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/auth"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// preflight sends a browser's CORS preflight of a drop-in call.
func preflight(e *apitest.Env, path, origin, method, headers string) *apitest.Resp {
	h := []string{"Origin", origin, "Access-Control-Request-Method", method}
	if headers != "" {
		h = append(h, "Access-Control-Request-Headers", headers)
	}
	return e.DoKey("", "OPTIONS", path, nil, h...)
}

// TestCORSPreflights: a preflight carries no key, so it is decided by the
// session the path names: allowed (204, Access-Control-Allow-Origin for the
// page's origin, POST, the platform's headers, cached 2 hours) when an
// active client key of the session's account allows the origin; refused
// with a 403 and no CORS header otherwise: another origin, a missing
// session, an origin only another account's key allows, a revoked key,
// another method, a header the platform does not read. On both stores.
func TestCORSPreflights(t *testing.T) {
	for name, st := range map[string]func(t *testing.T) store.Store{
		"embedded": func(*testing.T) store.Store { return nil },
		"dynamodb": func(t *testing.T) store.Store { return dynamotest.New(t, nil) },
	} {
		t.Run(name, func(t *testing.T) {
			e := apitest.NewWith(t, apitest.Options{Store: st(t)}, builders...)
			e.NewClientKey(origin)
			s := createSession(t, e, nil)
			for _, sub := range []string{"/setup", "/paymentMethods", "/payments", "/payments/details"} {
				r := preflight(e, "/v2/client/sessions/"+s.ID+sub, origin, "POST", "Authorization, Content-Type, Idempotency-Key")
				require.Equal(t, 204, r.Status, "%s: %s", sub, r.Body)
				assert.Equal(t, origin, r.Header.Get("Access-Control-Allow-Origin"))
				assert.Equal(t, "POST", r.Header.Get("Access-Control-Allow-Methods"))
				assert.Equal(t, "Authorization, x-api-key, Content-Type, Idempotency-Key, Service-Version", r.Header.Get("Access-Control-Allow-Headers"))
				assert.Equal(t, "7200", r.Header.Get("Access-Control-Max-Age"))
				assert.Empty(t, r.Body)
			}
			refused := func(why, path, o, method, headers string) {
				t.Helper()
				r := preflight(e, path, o, method, headers)
				assert.Equal(t, 403, r.Status, "%s: %s", why, r.Body)
				assert.Empty(t, r.Header.Get("Access-Control-Allow-Origin"), why)
				assert.Equal(t, "origin_not_allowed", r.Err(t)["code"], why)
			}
			path := "/v2/client/sessions/" + s.ID + "/payments"
			refused("another origin", path, "https://evil.example.com", "POST", "content-type")
			refused("a missing session", "/v2/client/sessions/CS404/payments", origin, "POST", "content-type")
			refused("another method", path, origin, "DELETE", "")
			refused("a header the platform does not read", path, origin, "POST", "content-type, x-shopper-card")

			// An origin that only another account's key allows.
			other, _ := e.NewAccount(accounts.Test)
			_, _, err := e.Deps.Keys.Create(context.Background(), other.ID, auth.NewKey{Kind: auth.Client, AllowedOrigins: []string{"https://other.example.com"}})
			require.NoError(t, err)
			refused("another account's origin", path, "https://other.example.com", "POST", "content-type")

			// A revoked key allows nothing from the next preflight on.
			k, _, err := e.Deps.Keys.Create(context.Background(), e.Account.ID, auth.NewKey{Kind: auth.Client, AllowedOrigins: []string{"https://old.example.com"}})
			require.NoError(t, err)
			require.Equal(t, 204, preflight(e, path, "https://old.example.com", "POST", "").Status)
			_, err = e.Deps.Keys.Revoke(context.Background(), e.Account.ID, k.ID)
			require.NoError(t, err)
			refused("a revoked key's origin", path, "https://old.example.com", "POST", "")

			// An OPTIONS that is no preflight names the methods.
			r := e.DoKey("", "OPTIONS", path, nil)
			assert.Equal(t, 204, r.Status)
			assert.Equal(t, "OPTIONS, POST", r.Header.Get("Allow"))
			assert.Empty(t, r.Header.Get("Access-Control-Allow-Origin"))
		})
	}
}

// TestCORSOnCalls: the drop-in's calls carry Access-Control-Allow-Origin
// exactly when their client key allows the request's origin, errors
// included (so the page can read a refusal); a disallowed origin's 403 and
// every server-key route carry none.
func TestCORSOnCalls(t *testing.T) {
	e := newEnv(t)
	ck := e.NewClientKey(origin)
	s := createSession(t, e, nil)
	base := "/v2/client/sessions/" + s.ID

	r := e.DoKey(ck, "POST", base+"/setup", map[string]any{"sessionData": s.SessionData}, "Origin", origin)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	assert.Equal(t, origin, r.Header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, r.Header.Values("Vary"), "Origin")
	assert.Equal(t, "Request-Id, Service-Version, Idempotent-Replayed", r.Header.Get("Access-Control-Expose-Headers"))

	r = e.DoKey(ck, "POST", base+"/payments", map[string]any{"sessionData": s.SessionData, "paymentMethod": card("4111111111111112")}, "Origin", origin)
	require.Equal(t, 400, r.Status, "%s", r.Body)
	assert.Equal(t, origin, r.Header.Get("Access-Control-Allow-Origin"), "a refusal the page must read")

	r = e.DoKey(ck, "POST", base+"/setup", map[string]any{"sessionData": s.SessionData}, "Origin", "https://evil.example.com")
	require.Equal(t, 403, r.Status)
	assert.Empty(t, r.Header.Get("Access-Control-Allow-Origin"))
	r = e.DoKey("", "POST", base+"/setup", map[string]any{"sessionData": s.SessionData}, "Origin", origin)
	require.Equal(t, 401, r.Status)
	assert.Empty(t, r.Header.Get("Access-Control-Allow-Origin"))

	r = e.Do("GET", "/v2/sessions/"+s.ID, nil, "Origin", origin)
	require.Equal(t, 200, r.Status)
	assert.Empty(t, r.Header.Get("Access-Control-Allow-Origin"), "server-key routes are not for browsers")
}

// TestCORSPreflightHeadersOverTheirMaximum: a preflight header longer than
// documented is a 400 naming it.
func TestCORSPreflightHeadersOverTheirMaximum(t *testing.T) {
	e := newEnv(t)
	s := createSession(t, e, nil)
	path := "/v2/client/sessions/" + s.ID + "/setup"
	r := preflight(e, path, origin, "POST", strings.Repeat("a", 257))
	require.Equal(t, 400, r.Status, "%s", r.Body)
	assert.Equal(t, "Access-Control-Request-Headers", r.Err(t)["param"])
	r = preflight(e, path, "https://"+strings.Repeat("a", 250)+".com", "POST", "")
	require.Equal(t, 400, r.Status, "%s", r.Body)
	assert.Equal(t, "Origin", r.Err(t)["param"])
}

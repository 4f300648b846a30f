package dashboard_test

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/dashboard"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// TestViewersSeeOnlyThemselvesOnTheSecurityPage: the people list is every
// user of the account for owners and developers, the viewer alone for a
// viewer.
func TestViewersSeeOnlyThemselvesOnTheSecurityPage(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		owner, dev, viewer := e.user("", dashboard.Owner), e.user("", dashboard.Developer), e.user("", dashboard.Viewer)
		for _, who := range []string{owner, dev} {
			c := e.client()
			c.signIn(who)
			p := c.get("/dashboard/settings/security")
			require.Equal(t, 200, p.Status)
			for _, u := range []string{owner, dev, viewer} {
				assert.Contains(t, p.Body, u, "%s sees %s", who, u)
			}
		}
		c := e.client()
		c.signIn(viewer)
		p := c.get("/dashboard/settings/security")
		require.Equal(t, 200, p.Status)
		assert.Contains(t, p.Body, viewer)
		assert.NotContains(t, p.Body, owner)
		assert.NotContains(t, p.Body, dev)
	})
}

// enableTOTP turns the user's second factor on from the security page and
// returns its secret.
func (c *client) enableTOTP(t *testing.T, csrf string) string {
	t.Helper()
	m := totpRe.FindStringSubmatch(c.get("/dashboard/settings/security").Body)
	require.NotNil(t, m)
	secret := m[1]
	apitest.RememberSecret(secret)
	code, err := totp.GenerateCode(secret, c.e.Clock.Now())
	require.NoError(t, err)
	r := c.post("/dashboard/settings/security/totp", url.Values{"csrf": {csrf}, "action": {"enable"}, "secret": {secret}, "code": {code}})
	require.Equal(t, 303, r.Status, r.Body)
	return secret
}

func (e *env) totpOn(email string) bool {
	e.T.Helper()
	u, err := e.dash.UserByEmail(context.Background(), email)
	require.NoError(e.T, err)
	return u.TOTP
}

// TestTOTPCodeIsAcceptedOnce: a code signs in once, even two sign-ins
// with it at the same moment; the code that turned it on signs in never.
func TestTOTPCodeIsAcceptedOnce(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		email := e.user("", dashboard.Developer)
		c := e.client()
		secret := c.enableTOTP(t, c.signIn(email))
		ctx := context.Background()
		in := func(code, addr string) error {
			_, _, err := e.dash.SignIn(ctx, dashboard.SignInInput{Email: email, Password: password, Code: code, Address: addr})
			return err
		}
		first, _ := totp.GenerateCode(secret, e.Clock.Now())
		assert.Equal(t, dashboard.ErrSignIn, in(first, "192.0.2.1"), "the code that turned it on is used")

		e.Clock.Advance(30 * time.Second)
		code, _ := totp.GenerateCode(secret, e.Clock.Now())
		var wg sync.WaitGroup
		var won atomic.Int32
		// Three at once (with the used one before and the replay after, 4
		// failures: under the limit of 5).
		for i := 0; i < 3; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				err := in(code, fmt.Sprintf("192.0.2.%d", 10+i))
				if err == nil {
					won.Add(1)
				} else {
					assert.Equal(t, dashboard.ErrSignIn, err)
				}
			}(i)
		}
		wg.Wait()
		assert.EqualValues(t, 1, won.Load(), "one sign-in per code")
		assert.Equal(t, dashboard.ErrSignIn, in(code, "192.0.2.20"), "and none after")
		e.Clock.Advance(30 * time.Second)
		next, _ := totp.GenerateCode(secret, e.Clock.Now())
		require.NoError(t, in(next, "192.0.2.21"))
	})
}

// TestTOTPOffOrMovedNeedsACodeOrThePassword: the session alone does not
// turn two-step sign-in off nor replace its secret; a current (unused)
// code or the password does.
func TestTOTPOffOrMovedNeedsACodeOrThePassword(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		email := e.user("", dashboard.Viewer)
		c := e.client()
		csrf := c.signIn(email)
		secret := c.enableTOTP(t, csrf)
		sec := c.get("/dashboard/settings/security")
		assert.Contains(t, sec.Body, `id="disable-totp"`)
		assert.Contains(t, sec.Body, `id="replace-totp"`)
		post := func(v url.Values) *page {
			v.Set("csrf", csrf)
			return c.post("/dashboard/settings/security/totp", v)
		}
		used, _ := totp.GenerateCode(secret, e.Clock.Now())
		for name, v := range map[string]url.Values{
			"nothing":          {"action": {"disable"}},
			"a wrong code":     {"action": {"disable"}, "current_code": {"000000"}},
			"a used code":      {"action": {"disable"}, "current_code": {used}},
			"a wrong password": {"action": {"disable"}, "password": {"not the password"}},
		} {
			r := post(v)
			assert.Equal(t, 400, r.Status, name)
			assert.True(t, e.totpOn(email), "still on after %s", name)
		}
		// Moving to another app: the new app's code and a current one.
		m := totpRe.FindStringSubmatch(sec.Body)
		require.NotNil(t, m)
		newSecret := m[1]
		apitest.RememberSecret(newSecret)
		e.Clock.Advance(30 * time.Second)
		newCode, _ := totp.GenerateCode(newSecret, e.Clock.Now())
		r := post(url.Values{"action": {"replace"}, "secret": {newSecret}, "code": {newCode}})
		assert.Equal(t, 400, r.Status, "the session alone does not replace it")
		cur, _ := totp.GenerateCode(secret, e.Clock.Now())
		r = post(url.Values{"action": {"replace"}, "secret": {newSecret}, "code": {newCode}, "current_code": {cur}})
		require.Equal(t, 303, r.Status, r.Body)
		e.Clock.Advance(30 * time.Second)
		ctx := context.Background()
		old, _ := totp.GenerateCode(secret, e.Clock.Now())
		_, _, err := e.dash.SignIn(ctx, dashboard.SignInInput{Email: email, Password: password, Code: old, Address: "192.0.2.30"})
		assert.Equal(t, dashboard.ErrSignIn, err, "the old app's codes are dead")
		// Off with the password.
		r = post(url.Values{"action": {"disable"}, "password": {password}})
		require.Equal(t, 303, r.Status, r.Body)
		assert.False(t, e.totpOn(email))
		_, _, err = e.dash.SignIn(ctx, dashboard.SignInInput{Email: email, Password: password, Address: "192.0.2.30"})
		require.NoError(t, err)
		acts := e.actions(e.Account.ID)
		assert.Equal(t, 1, acts["user.totp_enable"])
		assert.Equal(t, 1, acts["user.totp_replace"])
		assert.Equal(t, 1, acts["user.totp_disable"])
		assert.Equal(t, 3, acts["user.totp_proof_failed"], "a wrong code, a used one, a wrong password")
	})
}

// TestFailedSignInsAreAudited: each checked failure of a known user is in
// its account's log, with the address and the factor, never the password.
func TestFailedSignInsAreAudited(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		email := e.user("", dashboard.Developer)
		ctx := context.Background()
		_, _, err := e.dash.SignIn(ctx, dashboard.SignInInput{Email: email, Password: "hunter2 hunter2", Address: "203.0.113.9"})
		require.Equal(t, dashboard.ErrSignIn, err)
		_, _, err = e.dash.SignIn(ctx, dashboard.SignInInput{Email: "nobody@example.test", Password: "hunter2 hunter2", Address: "203.0.113.9"})
		require.Equal(t, dashboard.ErrSignIn, err)
		entries, _, err := e.dash.AuditLog(ctx, dashboard.UnknownEmails, 10, "")
		require.NoError(t, err)
		require.Len(t, entries, 1, "an email nobody has: in the log of no account")
		assert.Equal(t, "nobody@example.test", entries[0].Email)
		entries, _, err = e.dash.AuditLog(ctx, e.Account.ID, 10, "")
		require.NoError(t, err)
		require.Len(t, entries, 1)
		f := entries[0]
		assert.Equal(t, "session.sign_in_failed", f.Action)
		assert.Equal(t, email, f.Email)
		assert.Equal(t, "203.0.113.9", f.Address)
		assert.Equal(t, "wrong password", f.Detail)
		// An owner sees it on the audit page.
		c := e.client()
		c.signIn(e.user("", dashboard.Owner))
		page := c.get("/dashboard/audit-log")
		assert.Contains(t, page.Body, "session.sign_in_failed")
		assert.NotContains(t, page.Body, "hunter2")
	})
}

// countingStore counts a store's reads and writes.
type countingStore struct {
	store.Store
	gets, writes atomic.Int32
}

func (c *countingStore) Get(ctx context.Context, k store.Key) (store.Item, error) {
	c.gets.Add(1)
	return c.Store.Get(ctx, k)
}

func (c *countingStore) Write(ctx context.Context, ops ...store.Op) error {
	c.writes.Add(1)
	return c.Store.Write(ctx, ops...)
}

// TestFailedSignInCostsTheSameForAnyEmail: a wrong password of a known
// user and an email nobody has make the same store calls (with the same
// argon2id work, no timing tells them apart).
func TestFailedSignInCostsTheSameForAnyEmail(t *testing.T) {
	c := &countingStore{}
	e := newEnvWith(t, embedded, func(s store.Store) store.Store { c.Store = s; return c })
	email := e.user("", dashboard.Owner)
	calls := func(email string) [2]int32 {
		c.gets.Store(0)
		c.writes.Store(0)
		_, _, err := e.dash.SignIn(context.Background(), dashboard.SignInInput{Email: email, Password: "wrong guess", Address: "192.0.2.50"})
		require.Equal(t, dashboard.ErrSignIn, err)
		return [2]int32{c.gets.Load(), c.writes.Load()}
	}
	assert.Equal(t, calls(email), calls("nobody@example.test"))
}

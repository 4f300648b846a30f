package dashboard_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/dashboard"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// pairedLive is a live account paired with the env's test account, and
// its secret key.
func (e *env) pairedLive() (*accounts.Account, string) {
	e.T.Helper()
	live, key := e.NewAccount(accounts.Live)
	_, _, err := e.Deps.Accounts.Pair(context.Background(), live.ID, e.Account.ID)
	require.NoError(e.T, err)
	return live, key
}

// grant gives the user role on account (its pair: pairing grants nothing).
func (e *env) grant(email, account string, role dashboard.Role) {
	e.T.Helper()
	_, err := e.dash.SetRole(context.Background(), email, account, role)
	require.NoError(e.T, err)
}

func TestModeSwitchKeepsLiveAndTestApart(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		live, liveKey := e.pairedLive()
		apitestRemember(liveKey)
		testPay := e.seed("", "order-in-test", payments.Charged)
		livePay := e.seed(live.ID, "order-in-live", payments.Charged)
		email := e.user("", dashboard.Developer)
		e.grant(email, live.ID, dashboard.Developer)
		c := e.client()
		csrf := c.signIn(email)

		home := c.get("/dashboard")
		assert.Contains(t, home.Body, "order-in-test")
		assert.NotContains(t, home.Body, "order-in-live")
		assert.Contains(t, home.Body, `id="test-banner"`)
		assert.Contains(t, home.Body, `name="account" value="`+live.ID+`"`, "the switch names the pair")

		// Switched to live: live records only, no test banner; the test
		// account's payment is a 404, to read or to refund.
		r := c.post("/dashboard/switch-account", url.Values{"csrf": {csrf}, "account": {live.ID}})
		require.Equal(t, 303, r.Status, r.Body)
		assert.Equal(t, "/dashboard", r.Header.Get("Location"))
		home = c.get("/dashboard")
		assert.Contains(t, home.Body, "order-in-live")
		assert.NotContains(t, home.Body, "order-in-test")
		assert.NotContains(t, home.Body, `id="test-banner"`)
		assert.Contains(t, home.Body, "live mode")
		assert.Contains(t, home.Body, `name="account" value="`+e.Account.ID+`"`, "and back")
		list := c.get("/dashboard/payments")
		assert.Contains(t, list.Body, livePay)
		assert.NotContains(t, list.Body, testPay)
		assert.Equal(t, 404, c.get("/dashboard/payments/"+testPay).Status)
		p := c.get("/dashboard/payments/" + livePay)
		require.Equal(t, 200, p.Status)
		keys := keyRe.FindAllStringSubmatch(p.Body, -1)
		assert.Equal(t, 404, c.post("/dashboard/payments/"+testPay+"/refund", url.Values{"csrf": {csrf}, "idempotency_key": {keys[len(keys)-1][1]}, "amount": {"1.00"}}).Status)
		// A change writes the live account only.
		require.Equal(t, 303, c.post("/dashboard/payments/"+livePay+"/refund", url.Values{"csrf": {csrf}, "idempotency_key": {keys[len(keys)-1][1]}, "amount": {"3.00"}}).Status)
		assert.EqualValues(t, 300, e.DoKey(liveKey, "GET", "/v1/transactions/"+livePay, nil).Map(t)["refunded_amount"])
		assert.EqualValues(t, 0, e.Do("GET", "/v1/transactions/"+testPay, nil).Map(t)["refunded_amount"])
		assert.Equal(t, 1, e.actions(live.ID)["payment.refund"], "the change's entry is in the live account's log")
		assert.Zero(t, e.actions(e.Account.ID)["payment.refund"])
		assert.Equal(t, 1, e.actions(e.Account.ID)["session.switch_account"], "the switch is in the user's own account's log")

		// Another session of the same user is not switched.
		other := e.client()
		other.signIn(email)
		assert.NotContains(t, other.get("/dashboard/payments").Body, livePay)

		// Back to test: test records only.
		require.Equal(t, 303, c.post("/dashboard/switch-account", url.Values{"csrf": {csrf}, "account": {e.Account.ID}}).Status)
		list = c.get("/dashboard/payments")
		assert.Contains(t, list.Body, testPay)
		assert.NotContains(t, list.Body, livePay)
		assert.Equal(t, 404, c.get("/dashboard/payments/"+livePay).Status)

		// A forged switch to an account that is not the pair is a 404,
		// and the session stays where it was.
		stranger := e.otherAccount()
		e.seed(stranger.ID, "order-stranger", payments.Charged)
		assert.Equal(t, 404, c.post("/dashboard/switch-account", url.Values{"csrf": {csrf}, "account": {stranger.ID}}).Status)
		assert.Equal(t, 404, c.post("/dashboard/switch-account", url.Values{"csrf": {csrf}, "account": {"no-such-account"}}).Status)
		assert.Equal(t, 403, c.post("/dashboard/switch-account", url.Values{"account": {live.ID}}).Status, "CSRF")
		list = c.get("/dashboard/payments")
		assert.Contains(t, list.Body, testPay)
		assert.NotContains(t, list.Body, "order-stranger")

		// A viewer switches too (it changes only the session), with the
		// viewer's role on the pair.
		v := e.client()
		viewer := e.user("", dashboard.Viewer)
		e.grant(viewer, live.ID, dashboard.Viewer)
		vc := v.signIn(viewer)
		require.Equal(t, 303, v.post("/dashboard/switch-account", url.Values{"csrf": {vc}, "account": {live.ID}}).Status)
		vp := v.get("/dashboard/payments/" + livePay)
		require.Equal(t, 200, vp.Status)
		assert.NotContains(t, vp.Body, `id="refund"`)

		// A session on an account that is no longer the pair reads the
		// user's own account again (the link cut in the store directly:
		// nothing unpairs today).
		require.Equal(t, 303, c.post("/dashboard/switch-account", url.Values{"csrf": {csrf}, "account": {live.ID}}).Status)
		require.Contains(t, c.get("/dashboard/payments").Body, livePay)
		_, err := e.Deps.Accounts.Update(context.Background(), live.ID, func(a *accounts.Account) ([]store.Op, error) {
			a.Pair = ""
			return nil, nil
		})
		require.NoError(t, err)
		list = c.get("/dashboard/payments")
		assert.Contains(t, list.Body, testPay)
		assert.NotContains(t, list.Body, livePay)
		assert.Equal(t, 404, c.get("/dashboard/payments/"+livePay).Status)
		_, _, err = e.Deps.Accounts.Pair(context.Background(), live.ID, e.Account.ID)
		require.Error(t, err, "half a pair is refused, not mended")
	})
}

func TestNoSwitchWithoutAPair(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		c := e.client()
		email := e.user("", dashboard.Owner)
		csrf := c.signIn(email)
		home := c.get("/dashboard")
		assert.NotContains(t, home.Body, `id="switch-mode"`)
		assert.NotContains(t, home.Body, "/dashboard/switch-account")
		// A live account of its own, not paired: still no switch, and a
		// switch to it is a 404.
		live, _ := e.NewAccount(accounts.Live)
		assert.Equal(t, 404, c.post("/dashboard/switch-account", url.Values{"csrf": {csrf}, "account": {live.ID}}).Status)
		// Pairing: a live and a test account, once.
		ctx := context.Background()
		_, _, err := e.Deps.Accounts.Pair(ctx, e.Account.ID, live.ID)
		assert.Equal(t, apierr.Invalid, apierr.KindOf(err), "the test account given as the live one")
		_, _, err = e.Deps.Accounts.Pair(ctx, live.ID, e.Account.ID)
		require.NoError(t, err)
		_, _, err = e.Deps.Accounts.Pair(ctx, live.ID, e.Account.ID)
		require.NoError(t, err, "the same pair again")
		_, _, err = e.Deps.Accounts.Pair(ctx, live.ID, e.otherAccount().ID)
		assert.Equal(t, apierr.Conflict, apierr.KindOf(err), "paired already")
		assert.False(t, strings.Contains(c.get("/dashboard").Body, `id="switch-mode"`), "paired, no role on live: no switch")
		e.grant(email, live.ID, dashboard.Developer)
		assert.True(t, strings.Contains(c.get("/dashboard").Body, `id="switch-mode"`), "paired, a role on live: the switch shows")
	})
}

// TestPairingGrantsNothing: on the paired account a user has the role it
// holds there, none when it holds none (the switch is refused as a
// forbidden page is), whatever its role on its own account.
func TestPairingGrantsNothing(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		live, liveKey := e.pairedLive()
		apitestRemember(liveKey)
		livePay := e.seed(live.ID, "order-in-live", payments.Charged)
		testPay := e.seed("", "order-in-test", payments.Charged)
		owner := e.user("", dashboard.Owner)
		c := e.client()
		csrf := c.signIn(owner)

		// No role on live: no switch in the header, and a switch posted
		// anyway is refused; the session stays on test.
		assert.NotContains(t, c.get("/dashboard").Body, `id="switch-mode"`)
		r := c.post("/dashboard/switch-account", url.Values{"csrf": {csrf}, "account": {live.ID}})
		assert.Equal(t, 403, r.Status, r.Body)
		assert.Contains(t, r.Body, "no role on the live account")
		list := c.get("/dashboard/payments")
		assert.Contains(t, list.Body, testPay)
		assert.NotContains(t, list.Body, livePay)
		assert.Zero(t, e.actions(e.Account.ID)["session.switch_account"])

		// A viewer on live: the switch, with the viewer's role there.
		e.grant(owner, live.ID, dashboard.Viewer)
		assert.Contains(t, c.get("/dashboard").Body, `id="switch-mode"`)
		require.Equal(t, 303, c.post("/dashboard/switch-account", url.Values{"csrf": {csrf}, "account": {live.ID}}).Status)
		p := c.get("/dashboard/payments/" + livePay)
		require.Equal(t, 200, p.Status)
		assert.NotContains(t, p.Body, `id="refund"`)
		assert.Contains(t, p.Body, owner+" · viewer")
		assert.Equal(t, 403, c.post("/dashboard/payments/"+livePay+"/refund", url.Values{"csrf": {csrf}, "idempotency_key": {ids.New()}, "amount": {"1.00"}}).Status)
		assert.Equal(t, 403, c.get("/dashboard/audit-log").Status, "an owner of test only: no audit log of live")
		assert.EqualValues(t, 0, e.DoKey(liveKey, "GET", "/v1/transactions/"+livePay, nil).Map(t)["refunded_amount"])

		// The role taken away: the session reads test again, as owner.
		e.grant(owner, live.ID, "")
		list = c.get("/dashboard/payments")
		assert.Contains(t, list.Body, testPay)
		assert.NotContains(t, list.Body, livePay)
		assert.Contains(t, list.Body, owner+" · owner")
		assert.Equal(t, 403, c.post("/dashboard/switch-account", url.Values{"csrf": {csrf}, "account": {live.ID}}).Status)

		// A role on an account that is not the pair is refused.
		ctx := context.Background()
		_, err := e.dash.SetRole(ctx, owner, e.otherAccount().ID, dashboard.Owner)
		assert.True(t, apierr.Is(err, apierr.NotFound), "%v", err)
		_, err = e.dash.SetRole(ctx, owner, live.ID, "admin")
		assert.True(t, apierr.Is(err, apierr.Invalid), "%v", err)
		_, err = e.dash.SetRole(ctx, owner, e.Account.ID, "")
		assert.True(t, apierr.Is(err, apierr.Invalid), "no user without a role on its own account: %v", err)
	})
}

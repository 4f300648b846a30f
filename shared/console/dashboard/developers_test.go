package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/dashboard"
	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// actions counts the account's audit entries by action.
func (e *env) actions(account string) map[string]int {
	e.T.Helper()
	entries, _, err := e.dash.AuditLog(context.Background(), account, 200, "")
	require.NoError(e.T, err)
	out := map[string]int{}
	for _, en := range entries {
		out[en.Action]++
	}
	return out
}

// endpoint creates a webhook endpoint through the dashboard's form and
// returns its id.
func (c *client) endpoint(csrf, u string) string {
	t := c.e.T
	p := c.get("/dashboard/developers/webhooks")
	r := c.post("/dashboard/developers/webhooks", url.Values{"csrf": {csrf}, "idempotency_key": {p.idemKey(t)}, "url": {u}, "events": {"*"}})
	require.Equal(t, 201, r.Status, r.Body)
	apitest.RememberSecret(secretIn(t, r.Body))
	for _, ep := range c.e.Do("GET", "/v1/webhook-endpoints", nil).Map(t)["data"].([]any) {
		if m := ep.(map[string]any); m["url"] == u {
			return m["id"].(string)
		}
	}
	t.Fatalf("no endpoint %s", u)
	return ""
}

func TestWebhookEndpointEditDisableEnableRollSecret(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		c := e.client()
		csrf := c.signIn(e.user("", dashboard.Developer))
		id := c.endpoint(csrf, "https://hooks.example.com/a")
		base := "/dashboard/developers/webhooks/" + id
		typ := eventlog.Types()[0]

		// Edit: url, events, description.
		r := c.post(base+"/update", url.Values{"csrf": {csrf}, "url": {"https://hooks.example.com/b"}, "events": {typ}, "description": {"<b>orders</b>"}})
		require.Equal(t, 303, r.Status, r.Body)
		ep := e.Do("GET", "/v1/webhook-endpoints/"+id, nil).Map(t)
		assert.Equal(t, "https://hooks.example.com/b", ep["url"])
		assert.Equal(t, []any{typ}, ep["enabled_events"])
		assert.Equal(t, "<b>orders</b>", ep["description"])
		page := c.get(base)
		assert.Contains(t, page.Body, "&lt;b&gt;orders&lt;/b&gt;", "the description is escaped")
		// Bad input is a 400 page and changes nothing.
		assert.Equal(t, 400, c.post(base+"/update", url.Values{"csrf": {csrf}, "url": {"https://hooks.example.com/c"}, "events": {"no.such_event"}}).Status)
		assert.Equal(t, 400, c.post(base+"/update", url.Values{"csrf": {csrf}, "url": {"ftp://x"}, "events": {"*"}}).Status)
		assert.Equal(t, "https://hooks.example.com/b", e.Do("GET", "/v1/webhook-endpoints/"+id, nil).Map(t)["url"])

		// Disable, then enable.
		require.Contains(t, page.Body, `id="disable-endpoint"`)
		require.Equal(t, 303, c.post(base+"/disable", url.Values{"csrf": {csrf}}).Status)
		assert.Equal(t, true, e.Do("GET", "/v1/webhook-endpoints/"+id, nil).Map(t)["disabled"])
		page = c.get(base)
		assert.Contains(t, page.Body, `id="enable-endpoint"`)
		assert.NotContains(t, page.Body, `id="disable-endpoint"`)
		require.Equal(t, 303, c.post(base+"/enable", url.Values{"csrf": {csrf}}).Status)
		assert.Equal(t, false, e.Do("GET", "/v1/webhook-endpoints/"+id, nil).Map(t)["disabled"])

		// Roll: the new secret is shown once; the old one signs for the
		// hour picked; the same form again rolls nothing more.
		page = c.get(base)
		form := url.Values{"csrf": {csrf}, "idempotency_key": {page.idemKey(t)}, "expires_in": {"3600"}}
		rolled := c.post(base+"/roll-secret", form)
		require.Equal(t, 200, rolled.Status, rolled.Body)
		secret := secretIn(t, rolled.Body)
		apitest.RememberSecret(secret)
		assert.True(t, strings.HasPrefix(secret, "whsec_"))
		assert.Contains(t, rolled.Body, "The previous secret signs too until "+e.Clock.Now().Add(time.Hour).UTC().Format("2006-01-02 15:04 UTC"))
		again := c.post(base+"/roll-secret", form)
		require.Equal(t, 303, again.Status, "a resubmitted roll replays")
		assert.NotContains(t, c.get(base).Body, secret, "the secret is shown only once")
		assert.Equal(t, 400, c.post(base+"/roll-secret", url.Values{"csrf": {csrf}, "idempotency_key": {"dash_long"}, "expires_in": {"604801"}}).Status)

		got := e.actions(e.Account.ID)
		for _, a := range []string{"webhook_endpoint.update", "webhook_endpoint.disable", "webhook_endpoint.enable", "webhook_endpoint.roll_secret"} {
			assert.Equal(t, 1, got[a], a)
		}
		assert.Equal(t, 1, got["webhook_endpoint.create"])
		created, _, err := e.dash.AuditLog(context.Background(), e.Account.ID, 50, "")
		require.NoError(t, err)
		for _, en := range created {
			if en.Action == "webhook_endpoint.create" {
				assert.Equal(t, id, en.Target, "a create's entry is given the new record's id")
			}
		}

		// A viewer sees no forms and is refused them; another account's
		// endpoint is a 404.
		v := e.client()
		vc := v.signIn(e.user("", dashboard.Viewer))
		assert.NotContains(t, v.get(base).Body, `id="roll-secret"`)
		assert.Equal(t, 403, v.post(base+"/disable", url.Values{"csrf": {vc}}).Status)
		o := e.client()
		oc := o.signIn(e.user(e.otherAccount().ID, dashboard.Owner))
		assert.Equal(t, 404, o.get(base).Status)
		assert.Equal(t, 404, o.post(base+"/disable", url.Values{"csrf": {oc}}).Status)
		assert.Equal(t, 404, o.post(base+"/update", url.Values{"csrf": {oc}, "url": {"https://evil.example.com"}, "events": {"*"}}).Status)
		assert.Equal(t, 404, o.post(base+"/roll-secret", url.Values{"csrf": {oc}, "idempotency_key": {"dash_x"}, "expires_in": {"0"}}).Status)
		assert.Equal(t, false, e.Do("GET", "/v1/webhook-endpoints/"+id, nil).Map(t)["disabled"])
	})
}

// putEvents stores n events of account, alternating two types, created a
// second apart ending at the clock's now; ids ascend (UUIDv7), as the
// events' writers leave them.
func (e *env) putEvents(account string, n int, data string) []string {
	e.T.Helper()
	types := eventlog.Types()
	var out []string
	now := e.Clock.Now().Unix()
	for i := range n {
		id := ids.Prefixed("evt")
		rec := fmt.Sprintf(`{"id":%q,"type":%q,"created":%d,"account":%q,"livemode":false,"data":%s}`, id, types[i%2], now-int64(n-i), account, data)
		require.NoError(e.T, e.Deps.Store.Write(context.Background(), store.Put(store.Item{Key: eventlog.Key(account, id), Data: []byte(rec)}, store.IfAbsent)))
		out = append(out, id)
		time.Sleep(time.Millisecond) // distinct UUIDv7 milliseconds keep the order
	}
	return out
}

func TestEventLogFiltersPagesAndShowsAnEvent(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		c := e.client()
		csrf := c.signIn(e.user("", dashboard.Developer))
		evs := e.putEvents(e.Account.ID, 30, `{"object":{"reference":"<script>alert(1)</script>"}}`)
		types := eventlog.Types()

		// Newest first, 25 a page, the cursor to the rest.
		first := c.get("/dashboard/developers/events")
		require.Equal(t, 200, first.Status, first.Body)
		assert.Contains(t, first.Body, evs[29])
		assert.NotContains(t, first.Body, evs[4])
		assert.Less(t, strings.Index(first.Body, evs[29]), strings.Index(first.Body, evs[28]))
		m := nextRe.FindStringSubmatch(first.Body)
		require.NotNil(t, m, "a next page")
		second := c.get("/dashboard/developers/events?" + strings.ReplaceAll(m[1], "&amp;", "&"))
		require.Equal(t, 200, second.Status)
		assert.Contains(t, second.Body, evs[0])
		assert.NotContains(t, second.Body, evs[29])

		// A type filter: only that type's events.
		f := c.get("/dashboard/developers/events?type=" + url.QueryEscape(types[1]))
		require.Equal(t, 200, f.Status)
		assert.Contains(t, f.Body, evs[29])
		assert.NotContains(t, f.Body, evs[28], "an event of the other type")
		// A created range: a day before today holds none.
		yesterday := e.Clock.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)
		today := e.Clock.Now().UTC().Format(time.DateOnly)
		assert.NotContains(t, c.get("/dashboard/developers/events?to="+yesterday).Body, "evt_")
		assert.Contains(t, c.get("/dashboard/developers/events?from="+today+"&to="+today).Body, evs[29])
		// An object's events: those whose resource has that id.
		objs := e.putEvents(e.Account.ID, 2, `{"id":"pay_obj1","object":"payment"}`)
		byObj := c.get("/dashboard/developers/events?object_id=pay_obj1")
		require.Equal(t, 200, byObj.Status)
		assert.Contains(t, byObj.Body, objs[0])
		assert.Contains(t, byObj.Body, objs[1])
		assert.NotContains(t, byObj.Body, evs[29])
		assert.Equal(t, 400, c.get("/dashboard/developers/events?object_id=%3Cx%3E").Status)
		// Bad filters are 400 pages.
		assert.Equal(t, 400, c.get("/dashboard/developers/events?type=no.such").Status)
		assert.Equal(t, 400, c.get("/dashboard/developers/events?from=yesterday").Status)
		assert.Equal(t, 400, c.get("/dashboard/developers/events?from="+today+"&to="+yesterday).Status)
		assert.Equal(t, 400, c.get("/dashboard/developers/events?cursor=@@").Status)

		// An event: its payload as escaped JSON, its endpoints.
		epID := c.endpoint(csrf, "https://hooks.example.com/log")
		ev := c.get("/dashboard/developers/events/" + evs[29])
		require.Equal(t, 200, ev.Status, ev.Body)
		assert.NotContains(t, ev.Body, "<script>alert(1)")
		assert.Contains(t, ev.Body, `&#34;reference&#34;: &#34;\u003cscript\u003ealert(1)\u003c/script\u003e&#34;`)
		assert.Contains(t, ev.Body, "https://hooks.example.com/log")
		// Resend: to the endpoint named, or every subscribed one.
		require.Equal(t, 303, c.post("/dashboard/developers/events/"+evs[29]+"/resend", url.Values{"csrf": {csrf}, "endpoint_id": {epID}}).Status)
		require.Equal(t, 303, c.post("/dashboard/developers/events/"+evs[29]+"/resend", url.Values{"csrf": {csrf}}).Status)
		assert.Equal(t, 2, e.actions(e.Account.ID)["webhook_event.resend"])

		// Another account's event is a 404, to read or resend; its log
		// shows none of these.
		o := e.client()
		oc := o.signIn(e.user(e.otherAccount().ID, dashboard.Owner))
		assert.Equal(t, 404, o.get("/dashboard/developers/events/"+evs[29]).Status)
		assert.Equal(t, 404, o.post("/dashboard/developers/events/"+evs[29]+"/resend", url.Values{"csrf": {oc}}).Status)
		assert.NotContains(t, o.get("/dashboard/developers/events").Body, "evt_")
		assert.Equal(t, 404, c.get("/dashboard/developers/events/evt_missing").Status)
	})
}

var nextRe = regexp.MustCompile(`href="/dashboard/developers/events\?([^"]+)">Next page`)

// racer makes the webhook endpoint's writes lose races: before each of the
// first n writes of an endpoint it moves the endpoint's version on (a
// concurrent change, written straight to the store).
type racer struct {
	store.Store
	left atomic.Int64
}

func (r *racer) Write(ctx context.Context, ops ...store.Op) error {
	for _, op := range ops {
		if strings.HasPrefix(op.Item.PK, "whep#") && op.Kind == store.OpPut && r.left.Add(-1) >= 0 {
			cur, err := r.Store.Get(ctx, op.Item.Key)
			if err == nil {
				if werr := r.Store.Write(store.WithoutExtras(ctx), store.Put(cur, store.IfVersion(cur.Version))); werr != nil {
					return werr
				}
			}
		}
	}
	return r.Store.Write(ctx, ops...)
}

func TestAuditEntryCommitsWithTheChangeOrNeither(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		r := &racer{}
		e := newEnvWith(t, b, func(s store.Store) store.Store { r.Store = s; return r })
		e.AllowServerErrors("an audit entry whose write fails (its id taken) refuses its change with a 500")
		c := e.client()
		csrf := c.signIn(e.user("", dashboard.Developer))
		ctx := context.Background()

		// The change's write fails (it loses every race it retries): no
		// entry.
		id := c.endpoint(csrf, "https://hooks.example.com/race")
		base := "/dashboard/developers/webhooks/" + id
		r.left.Store(100)
		assert.Equal(t, 409, c.post(base+"/disable", url.Values{"csrf": {csrf}}).Status)
		assert.Equal(t, false, e.Do("GET", "/v1/webhook-endpoints/"+id, nil).Map(t)["disabled"])
		assert.Zero(t, e.actions(e.Account.ID)["webhook_endpoint.disable"], "no entry for a change that failed")
		// It loses two races and wins the third: one entry, carried by the
		// write that committed.
		r.left.Store(2)
		require.Equal(t, 303, c.post(base+"/disable", url.Values{"csrf": {csrf}}).Status)
		assert.Equal(t, true, e.Do("GET", "/v1/webhook-endpoints/"+id, nil).Map(t)["disabled"])
		assert.Equal(t, 1, e.actions(e.Account.ID)["webhook_endpoint.disable"])

		// The entry's write fails (its id is taken): the refund does not
		// happen.
		pay := e.seed("", "order-audit", payments.Charged)
		taken := ids.New()
		require.NoError(t, e.Deps.Store.Write(ctx, store.Put(store.Item{Key: store.Key{Table: store.TableAccounts, PK: "dashaudit#" + e.Account.ID, SK: taken}, Data: []byte(`{"action":"taken"}`)}, store.Always)))
		dashboard.SetAuditIDs(e.dash, func() string { return taken })
		p := c.get("/dashboard/payments/" + pay)
		keys := keyRe.FindAllStringSubmatch(p.Body, -1)
		refused := c.post("/dashboard/payments/"+pay+"/refund", url.Values{"csrf": {csrf}, "idempotency_key": {keys[len(keys)-1][1]}, "amount": {"10.00"}})
		assert.Equal(t, 500, refused.Status, refused.Body)
		tx := e.Do("GET", "/v1/transactions/"+pay, nil).Map(t)
		assert.EqualValues(t, 0, tx["refunded_amount"], "no refund without its entry")
		assert.Equal(t, "charged", tx["status"])
		assert.Zero(t, e.actions(e.Account.ID)["payment.refund"])
		// With the log writable again the same refund goes through, with
		// its entry.
		dashboard.SetAuditIDs(e.dash, ids.New)
		p = c.get("/dashboard/payments/" + pay)
		keys = keyRe.FindAllStringSubmatch(p.Body, -1)
		ok := c.post("/dashboard/payments/"+pay+"/refund", url.Values{"csrf": {csrf}, "idempotency_key": {keys[len(keys)-1][1]}, "amount": {"10.00"}})
		require.Equal(t, 303, ok.Status, ok.Body)
		assert.EqualValues(t, 1000, e.Do("GET", "/v1/transactions/"+pay, nil).Map(t)["refunded_amount"])
		assert.Equal(t, 1, e.actions(e.Account.ID)["payment.refund"])
		var entry map[string]any
		it, err := e.Deps.Store.Get(ctx, store.Key{Table: store.TableAccounts, PK: "dashaudit#" + e.Account.ID, SK: taken})
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(it.Data, &entry))
		assert.Equal(t, "taken", entry["action"], "the entry in the way is untouched")
	})
}

// TestConcurrentRefundsEachWithItsEntry: refunds racing on one payment from
// the dashboard (each its own form and key) retry their lost races inside
// the service; every refund that happened has exactly one entry, and none
// that did not.
func TestConcurrentRefundsEachWithItsEntry(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		pay := e.seed("", "order-race", payments.Charged)
		c := e.client()
		csrf := c.signIn(e.user("", dashboard.Developer))
		const n = 12
		var wg sync.WaitGroup
		statuses := make([]int, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = c.post("/dashboard/payments/"+pay+"/refund", url.Values{"csrf": {csrf},
					"idempotency_key": {fmt.Sprintf("dash_race_%02d", i)}, "amount": {"1.00"}}).Status
			}()
		}
		wg.Wait()
		done := 0
		for _, st := range statuses {
			require.Contains(t, []int{303, 409}, st)
			if st == 303 {
				done++
			}
		}
		t.Logf("%d of %d refunds made", done, n)
		require.Positive(t, done)
		assert.EqualValues(t, done*100, e.Do("GET", "/v1/transactions/"+pay, nil).Map(t)["refunded_amount"])
		assert.Equal(t, done, e.actions(e.Account.ID)["payment.refund"], "one entry per refund made")
	})
}

package dashboard_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/dashboard"
	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/console/webhooks/signature"
	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/queue"
)

// signedReceiver is a merchant's endpoint that keeps each delivery's body
// and signature header.
type signedReceiver struct {
	srv          *httptest.Server
	mu           sync.Mutex
	bodies, sigs []string
}

func newSignedReceiver(t *testing.T) *signedReceiver {
	rc := &signedReceiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.bodies = append(rc.bodies, string(b))
		rc.sigs = append(rc.sigs, r.Header.Get(signature.HeaderSignature))
		rc.mu.Unlock()
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// deliver runs the webhook sender over what the queue holds.
func (w *web) deliver(t *testing.T) {
	t.Helper()
	sender := webhooks.NewSender(webhooks.New(w.Deps.Store, w.Clock.Now), w.Deps.Queue, webhooks.SenderConfig{Log: w.Deps.Log})
	msgs, err := w.Deps.Queue.Receive(context.Background(), queue.Webhooks, 10, 30*time.Second, 5*time.Second)
	require.NoError(t, err)
	require.NotEmpty(t, msgs)
	for _, m := range msgs {
		resp, err := app.SQSLambda(sender.Consume)(context.Background(), lambdaevents.SQSEvent{Records: []lambdaevents.SQSMessage{{MessageId: m.ID, Body: string(m.Body)}}})
		require.NoError(t, err)
		require.Empty(t, resp.BatchItemFailures)
	}
}

func TestBrowserWebhookEndpointEditDisableRoll(t *testing.T) {
	w := newWeb(t)
	rc := newSignedReceiver(t)
	evs := w.putEvents(w.Account.ID, 1, `{"object":{"id":"pay_1"}}`)
	tab := w.tab(t)
	w.signIn(t, tab, w.user("", dashboard.Developer), password)
	w.open(t, tab, "/dashboard/developers/webhooks")
	do(t, tab, chromedp.SendKeys(chromedp.CSS(`input[name=url]`), rc.srv.URL+"/old"))
	submit(t, tab, "#create-endpoint")
	oldSecret := text(t, tab, "#new-secret")
	rememberSecret(oldSecret)
	epID := w.Do("GET", "/v1/webhook-endpoints", nil).Map(t)["data"].([]any)[0].(map[string]any)["id"].(string)

	// Edit: another url, one event type, a description.
	w.open(t, tab, "/dashboard/developers/webhooks/"+epID)
	do(t, tab,
		chromedp.SetValue(chromedp.CSS(`form[action$="/update"] input[name=url]`), rc.srv.URL+"/hooks"),
		chromedp.SetValue(chromedp.CSS(`form[action$="/update"] input[name=events]`), "order.completed, order.failed"),
		chromedp.SetValue(chromedp.CSS(`form[action$="/update"] input[name=description]`), "Orders to the warehouse"))
	submit(t, tab, "#update-endpoint")
	ep := w.Do("GET", "/v1/webhook-endpoints/"+epID, nil).Map(t)
	assert.Equal(t, rc.srv.URL+"/hooks", ep["url"])
	assert.Equal(t, []any{"order.completed", "order.failed"}, ep["enabled_events"])
	assert.Equal(t, "Orders to the warehouse", ep["description"])

	// Disable: the page says so, a resend to it is refused.
	submit(t, tab, "#disable-endpoint")
	assert.Equal(t, "disabled", text(t, tab, "#endpoint-state"))
	assert.Equal(t, true, w.Do("GET", "/v1/webhook-endpoints/"+epID, nil).Map(t)["disabled"])
	w.look(t, tab, "webhook-endpoint-disabled")
	submit(t, tab, "#enable-endpoint")
	assert.Equal(t, "enabled", text(t, tab, "#endpoint-state"))

	// Roll, the old secret signing one hour more: the new one is shown
	// once, and a delivery is signed with both.
	do(t, tab, chromedp.SetValue(chromedp.CSS(`select[name=expires_in]`), "3600"))
	submit(t, tab, "#roll-secret")
	newSecret := text(t, tab, "#new-secret")
	rememberSecret(newSecret)
	assert.NotEqual(t, oldSecret, newSecret)
	assert.Contains(t, text(t, tab, "main"), "The previous secret signs too until")
	w.look(t, tab, "webhook-endpoint-rolled")
	w.open(t, tab, "/dashboard/developers/webhooks/"+epID)
	assert.NotContains(t, text(t, tab, "main"), newSecret, "shown once")

	do(t, tab, chromedp.SetValue(chromedp.CSS(`select[name=event_id]`), evs[0]))
	submit(t, tab, "#resend")
	w.deliver(t)
	rc.mu.Lock()
	require.Len(t, rc.bodies, 1)
	body, sig := []byte(rc.bodies[0]), rc.sigs[0]
	rc.mu.Unlock()
	require.NoError(t, signature.Verify(body, sig, w.Clock.Now(), 5*time.Minute, newSecret))
	require.NoError(t, signature.Verify(body, sig, w.Clock.Now(), 5*time.Minute, oldSecret), "the old secret signs within its hour")
	w.open(t, tab, "/dashboard/developers/webhooks/"+epID)
	assert.Contains(t, text(t, tab, "main"), "succeeded")
	w.look(t, tab, "webhook-endpoint-edited")
}

func TestBrowserEventLogFilterAndDetail(t *testing.T) {
	w := newWeb(t)
	rc := newSignedReceiver(t)
	evs := w.putEvents(w.Account.ID, 6, `{"object":{"id":"ord_1","note":"<img src=x onerror=alert(1)>"}}`)
	types := eventlog.Types()
	tab := w.tab(t)
	w.signIn(t, tab, w.user("", dashboard.Developer), password)
	w.open(t, tab, "/dashboard/developers/webhooks")
	do(t, tab, chromedp.SendKeys(chromedp.CSS(`input[name=url]`), rc.srv.URL+"/hooks"))
	submit(t, tab, "#create-endpoint")
	rememberSecret(text(t, tab, "#new-secret"))

	w.open(t, tab, "/dashboard/developers/events")
	all := text(t, tab, "tbody")
	for _, id := range evs {
		assert.Contains(t, all, id)
	}
	w.look(t, tab, "events")
	// Filter by the second type: its three events only.
	do(t, tab, chromedp.SetValue(chromedp.CSS(`select[name=type]`), types[1]))
	submit(t, tab, "#filter-events")
	filtered := text(t, tab, "tbody")
	for i, id := range evs {
		assert.Equal(t, i%2 == 1, strings.Contains(filtered, id), "event %d", i)
	}
	w.look(t, tab, "events-filtered")

	// An event: its payload as text (the markup in it is not run), resent
	// from its page and delivered, its attempt listed under the endpoint.
	w.open(t, tab, "/dashboard/developers/events/"+evs[5])
	assert.Contains(t, text(t, tab, "#payload"), `"note": "\u003cimg src=x onerror=alert(1)\u003e"`)
	n, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll("main img").length`))
	require.NoError(t, err)
	assert.Zero(t, n)
	submit(t, tab, "#resend-event")
	w.deliver(t)
	w.open(t, tab, "/dashboard/developers/events/"+evs[5])
	assert.Contains(t, text(t, tab, "main"), "succeeded")
	w.look(t, tab, "event")
}

func TestBrowserModeSwitch(t *testing.T) {
	w := newWeb(t)
	live, liveKey := w.pairedLive()
	rememberSecret(liveKey)
	w.seed("", "order-test-7007", payments.Charged)
	w.seed(live.ID, "order-live-7007", payments.Charged)
	tab := w.tab(t)
	email := w.user("", dashboard.Owner)
	w.grant(email, live.ID, dashboard.Owner)
	w.signIn(t, tab, email, password)
	main := text(t, tab, "main")
	assert.Contains(t, main, "order-test-7007")
	assert.NotContains(t, main, "order-live-7007")
	assert.Contains(t, text(t, tab, "#test-banner"), "Test data")
	assert.Equal(t, "test mode", strings.ToLower(text(t, tab, "#mode")))
	w.look(t, tab, "mode-test")
	submit(t, tab, "#switch-mode")
	main = text(t, tab, "main")
	assert.Contains(t, main, "order-live-7007")
	assert.NotContains(t, main, "order-test-7007")
	assert.Equal(t, "live mode", strings.ToLower(text(t, tab, "#mode")))
	n, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll("#test-banner").length`))
	require.NoError(t, err)
	assert.Zero(t, n, "no test banner on live data")
	w.open(t, tab, "/dashboard/payments")
	assert.NotContains(t, text(t, tab, "main"), "order-test-7007")
	w.look(t, tab, "mode-live")
	submit(t, tab, "#switch-mode")
	assert.Contains(t, text(t, tab, "main"), "order-test-7007")
}

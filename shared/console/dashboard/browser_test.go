package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
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
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/testkit/apitest/browser"
)

// The browser tests: headless Chromium (Debian's, as the payment pages'
// tests use) signs in and does the everyday work on the dashboard's pages,
// then the test checks the result through the API. Each page's screenshot
// goes to .cache/screenshots/dashboard/ (SCREENSHOT_DIR overrides), and
// axe-core (AXE_CORE, installed by make test) audits each page for serious
// or critical accessibility violations.

type web struct {
	*env
	browser context.Context
	shots   string
	axe     string // axe.min.js
}

func newWeb(t *testing.T) *web {
	t.Helper()
	return newWebOn(t, func() *env { return newEnv(t, embedded) })
}

// newWebOn is a browser over the env newEnv builds (on the embedded
// store), with the screenshot directory and axe-core.
func newWebOn(t *testing.T, newEnv func() *env) *web {
	t.Helper()
	w := &web{browser: browser.New(t)}
	w.env = newEnv()
	w.shots = browser.ScreenshotDir(t) + "/dashboard"
	require.NoError(t, os.MkdirAll(w.shots, 0o755))
	if p := os.Getenv("AXE_CORE"); p != "" {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		w.axe = string(b)
	} else if os.Getenv(browser.Require) == "1" {
		t.Fatal("AXE_CORE is not set (infra/scripts/axe.sh install), and REQUIRE_BROWSER=1")
	}
	return w
}

// tab opens a tab in a browser context of its own (its own cookies: each
// tab is another person's browser).
func (w *web) tab(t *testing.T) context.Context {
	t.Helper()
	tab, cancel := chromedp.NewContext(w.browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(tab, 90*time.Second)
	t.Cleanup(cancelTimeout)
	// A laptop's window: the dashboard is a desk tool (the pages also fit a
	// phone: their tables scroll sideways).
	do(t, ctx, chromedp.EmulateViewport(1100, 760))
	return ctx
}

func do(t *testing.T, tab context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	require.NoError(t, chromedp.Do(tab, actions...))
}

func text(t *testing.T, tab context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS(sel)))
	require.NoError(t, err)
	return strings.TrimSpace(s)
}

// look saves the page's screenshot and runs axe-core in it: no serious or
// critical violation.
func (w *web) look(t *testing.T, tab context.Context, name string) {
	t.Helper()
	browser.Screenshot(t, tab, w.shots, name)
	w.axeRun(t, tab, name)
}

// axeRun runs axe-core in the tab: no serious or critical violation.
func (w *web) axeRun(t *testing.T, tab context.Context, name string) {
	t.Helper()
	if w.axe == "" {
		return
	}
	js := w.axe + `;(async () => { const r = await axe.run(document, {resultTypes: ['violations']});
		return JSON.stringify(r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
			.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.html)}))); })()`
	out, err := chromedp.Run(tab, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	var violations []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &violations))
	assert.Empty(t, violations, "axe-core on %s", name)
}

func (w *web) open(t *testing.T, tab context.Context, path string) {
	t.Helper()
	do(t, tab, chromedp.Navigate(w.URL+path), chromedp.WaitReady(chromedp.CSS("main")))
}

// submit clicks a form's button and waits for the next page to load (a
// mark set on this page is gone, and the new one is complete).
func submit(t *testing.T, tab context.Context, button string) {
	t.Helper()
	do(t, tab, chromedp.Evaluate[chromedp.Void]("window.__stale = true"), chromedp.Click(chromedp.CSS(button)))
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		done, err := chromedp.Run(tab, chromedp.Evaluate[bool](`!window.__stale && document.readyState === "complete"`))
		if err == nil && done {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no new page after clicking %s", button)
}

func (w *web) signIn(t *testing.T, tab context.Context, email, pw string) {
	t.Helper()
	w.open(t, tab, "/dashboard/sign-in")
	do(t, tab,
		chromedp.SendKeys(chromedp.CSS(`input[name=email]`), email),
		chromedp.SendKeys(chromedp.CSS(`input[name=password]`), pw))
	submit(t, tab, `form button[type=submit]`)
}

func TestBrowserSignInAndWrongPassword(t *testing.T) {
	w := newWeb(t)
	email := w.user("", dashboard.Owner)
	w.seed("", "order-1001", payments.Charged)
	tab := w.tab(t)
	w.open(t, tab, "/dashboard")
	require.Contains(t, text(t, tab, "h1"), "Sign in", "signed out: the sign-in page")
	w.look(t, tab, "sign-in")
	w.signIn(t, tab, email, "not the password")
	assert.Equal(t, "The email, password or code is wrong.", text(t, tab, ".error"))
	w.look(t, tab, "sign-in-wrong-password")
	w.signIn(t, tab, email, password)
	assert.Equal(t, "Home", text(t, tab, "h1"))
	assert.Contains(t, text(t, tab, "main"), "order-1001")
	w.look(t, tab, "home")
	// The session cookie is HttpOnly: no script reads it (its other
	// attributes: TestSignInOpensASessionWithAStrictCookie).
	cookie, err := chromedp.Run(tab, chromedp.Evaluate[string]("document.cookie"))
	require.NoError(t, err)
	assert.NotContains(t, cookie, dashboard.SessionCookie)
}

func TestBrowserRefundAndViewer(t *testing.T) {
	w := newWeb(t)
	id := w.seed("", "order-2002", payments.Charged)
	tab := w.tab(t)
	w.signIn(t, tab, w.user("", dashboard.Developer), password)
	w.open(t, tab, "/dashboard/payments")
	w.look(t, tab, "payments")
	w.open(t, tab, "/dashboard/payments/"+id)
	w.look(t, tab, "payment")
	do(t, tab,
		chromedp.SendKeys(chromedp.CSS(`form[action$="/refund"] input[name=amount]`), "40.00"),
		chromedp.SendKeys(chromedp.CSS(`form[action$="/refund"] input[name=reason]`), "customer request"),
	)
	submit(t, tab, "#refund")
	assert.Contains(t, text(t, tab, "h1"), "40.00 EUR", "the refund's page")
	w.look(t, tab, "refund")
	tx := w.Do("GET", "/v1/transactions/"+id, nil).Map(t)
	assert.EqualValues(t, 4000, tx["refunded_amount"])
	assert.Equal(t, "partially_refunded", tx["status"])

	// A viewer sees no refund button, and posting the form anyway is 403.
	viewer := w.tab(t)
	w.signIn(t, viewer, w.user("", dashboard.Viewer), password)
	w.open(t, viewer, "/dashboard/payments/"+id)
	n, err := chromedp.Run(viewer, chromedp.Evaluate[int](`document.querySelectorAll("#refund, form[action$='/refund']").length`))
	require.NoError(t, err)
	assert.Zero(t, n)
	w.look(t, viewer, "payment-viewer")
	status, err := chromedp.Run(viewer, chromedp.Evaluate[int](fmt.Sprintf(`(async () => {
		const page = await (await fetch("/dashboard/developers/api-keys")).text();
		const csrf = page.match(/name="csrf" value="([^"]+)"/)[1];
		const r = await fetch("/dashboard/payments/%s/refund", {method: "POST", redirect: "manual",
			headers: {"Content-Type": "application/x-www-form-urlencoded"},
			body: new URLSearchParams({csrf, idempotency_key: "dash_viewer_try", amount: "1.00"})});
		return r.status; })()`, id), chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	assert.Equal(t, 403, status)
	// A form without its CSRF token is refused, for the developer too.
	status, err = chromedp.Run(tab, chromedp.Evaluate[int](fmt.Sprintf(`(async () => {
		const r = await fetch("/dashboard/payments/%s/refund", {method: "POST", redirect: "manual",
			headers: {"Content-Type": "application/x-www-form-urlencoded"},
			body: new URLSearchParams({idempotency_key: "dash_nocsrf", amount: "1.00"})});
		return r.status; })()`, id), chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	assert.Equal(t, 403, status)
	assert.EqualValues(t, 4000, w.Do("GET", "/v1/transactions/"+id, nil).Map(t)["refunded_amount"])
}

func TestBrowserKeysAndVersion(t *testing.T) {
	w := newWeb(t)
	tab := w.tab(t)
	w.signIn(t, tab, w.user("", dashboard.Owner), password)
	w.open(t, tab, "/dashboard/developers/api-keys")
	do(t, tab, chromedp.SendKeys(chromedp.CSS(`input[name=name]`), "backend"))
	submit(t, tab, "#create-key")
	secret := text(t, tab, "#new-secret")
	rememberSecret(secret)
	w.look(t, tab, "api-keys-created")
	// The new key calls the API.
	assert.Equal(t, 200, w.DoKey(secret, "GET", "/v1/transactions", nil).Status)
	// Reloading the list shows it no more.
	w.open(t, tab, "/dashboard/developers/api-keys")
	assert.NotContains(t, text(t, tab, "main"), secret)

	w.open(t, tab, "/dashboard/developers/api-version")
	w.look(t, tab, "api-version")
	assert.Equal(t, "2024-01-15", w.DoKey(secret, "GET", "/v1/transactions", nil).Header.Get("Service-Version"))
	do(t, tab, chromedp.SetValue(chromedp.CSS(`select[name=version]`), "2023-06-01"))
	submit(t, tab, "#set-version")
	assert.Equal(t, "2023-06-01", text(t, tab, "#default-version"))
	assert.Equal(t, "2023-06-01", w.DoKey(secret, "GET", "/v1/transactions", nil).Header.Get("Service-Version"), "the next response")
	w.open(t, tab, "/dashboard/audit-log")
	assert.Contains(t, text(t, tab, "main"), "account.default_version")
	w.look(t, tab, "audit-log")
	w.open(t, tab, "/dashboard/settings/security")
	w.look(t, tab, "security")
}

// receiver is a merchant's webhook endpoint on this machine.
type receiver struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []http.Header
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		rc.mu.Lock()
		rc.seen = append(rc.seen, r.Header.Clone())
		rc.mu.Unlock()
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func TestBrowserWebhookEndpointAndResend(t *testing.T) {
	w := newWeb(t)
	rc := newReceiver(t)
	id := w.seed("", "order-3003", payments.Charged)
	tab := w.tab(t)
	w.signIn(t, tab, w.user("", dashboard.Developer), password)
	w.open(t, tab, "/dashboard/developers/webhooks")
	do(t, tab, chromedp.SendKeys(chromedp.CSS(`input[name=url]`), rc.srv.URL+"/hooks"))
	submit(t, tab, "#create-endpoint")
	rememberSecret(text(t, tab, "#new-secret"))
	w.look(t, tab, "webhooks")
	// An event: the refund of a payment, from its page.
	w.open(t, tab, "/dashboard/payments/"+id)
	submit(t, tab, "#refund")
	evs := w.Do("GET", "/v1/events", nil).Map(t)["data"].([]any)
	require.NotEmpty(t, evs)
	evID := evs[0].(map[string]any)["id"].(string)
	eps := w.Do("GET", "/v1/webhook-endpoints", nil).Map(t)["data"].([]any)
	epID := eps[0].(map[string]any)["id"].(string)
	w.open(t, tab, "/dashboard/developers/webhooks/"+epID)
	do(t, tab, chromedp.SetValue(chromedp.CSS(`select[name=event_id]`), evID))
	submit(t, tab, "#resend")
	// The webhook sender (the function the queue feeds) delivers it.
	sender := webhooks.NewSender(webhooks.New(w.Deps.Store, w.Clock.Now), w.Deps.Queue, webhooks.SenderConfig{Log: w.Deps.Log})
	msgs, err := w.Deps.Queue.Receive(context.Background(), queue.Webhooks, 10, 30*time.Second, 5*time.Second)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	resp, err := app.SQSLambda(sender.Consume)(context.Background(), lambdaevents.SQSEvent{Records: []lambdaevents.SQSMessage{{MessageId: "m1", Body: string(msgs[0].Body)}}})
	require.NoError(t, err)
	require.Empty(t, resp.BatchItemFailures)
	rc.mu.Lock()
	require.Len(t, rc.seen, 1)
	assert.Equal(t, evID, rc.seen[0].Get("Service-Event-Id"))
	rc.mu.Unlock()
	w.open(t, tab, "/dashboard/developers/webhooks/"+epID)
	assert.Contains(t, text(t, tab, "main"), "succeeded")
	w.look(t, tab, "webhook-endpoint")
}

func TestBrowserOtherAccountSeesNothing(t *testing.T) {
	w := newWeb(t)
	ours := w.seed("", "order-ours-4004", payments.Charged)
	other := w.otherAccount()
	tab := w.tab(t)
	w.signIn(t, tab, w.user(other.ID, dashboard.Owner), password)
	w.open(t, tab, "/dashboard/payments")
	assert.NotContains(t, text(t, tab, "main"), "order-ours-4004")
	w.open(t, tab, "/dashboard/payments/"+ours)
	assert.Equal(t, "Not found", text(t, tab, "h1"))
	w.look(t, tab, "other-account-404")
}

func rememberSecret(s string) { apitestRemember(s) }

func TestBrowserGateAndWallet(t *testing.T) {
	w := newWeb(t)
	id := w.gateOrder(w.Account.ID, w.Key, "shop-5005")
	r := w.Do("POST", "/v1/wallet/authorize", map[string]any{"amount": 150000, "phoneNumber": "+77011234567", "iin": "900101300017",
		"orderReference": "wallet-order-5005", "currency": "KZT"}, "Idempotency-Key", "dash-browser-wallet")
	require.Equal(t, 200, r.Status, "%s", r.Body)
	tab := w.tab(t)
	w.signIn(t, tab, w.user("", dashboard.Viewer), password)
	w.open(t, tab, "/dashboard/gate/orders")
	assert.Contains(t, text(t, tab, "main"), "shop-5005")
	w.look(t, tab, "gate-orders")
	w.open(t, tab, "/dashboard/gate/orders/"+id)
	w.look(t, tab, "gate-order")
	w.open(t, tab, "/dashboard/gate/balance")
	assert.Contains(t, text(t, tab, "main"), "40.00 USD")
	w.look(t, tab, "gate-balance")
	w.open(t, tab, "/dashboard/wallet")
	assert.Contains(t, text(t, tab, "main"), "wallet-order-5005")
	w.look(t, tab, "wallet")
}

func TestBrowserPaymentLinks(t *testing.T) {
	w := newWeb(t)
	tab := w.tab(t)
	w.signIn(t, tab, w.user("", dashboard.Developer), password)
	w.open(t, tab, "/dashboard/payment-links")
	do(t, tab,
		chromedp.SendKeys(chromedp.CSS(`input[name=amount]`), "12.50"),
		chromedp.SendKeys(chromedp.CSS(`input[name=description]`), "Two gift cards"),
		chromedp.SendKeys(chromedp.CSS(`input[name=order_reference]`), "order-6006"))
	submit(t, tab, "#create-link")
	links := w.Do("GET", "/v1/payment-links", nil).Map(t)["data"].([]any)
	require.Len(t, links, 1)
	link := links[0].(map[string]any)
	assert.EqualValues(t, 1250, link["amount"].(map[string]any)["value"])
	assert.Contains(t, text(t, tab, "main"), link["url"].(string))
	w.look(t, tab, "payment-links")
}

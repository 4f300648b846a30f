package links_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/pay/dropin"
	"github.com/paygate/paygate/shared/pay/links"
	"github.com/paygate/paygate/shared/testkit/apitest/browser"
)

// The browser tests: headless Chromium (Debian's, installed by make test)
// pays links on their hosted page and sessions through the Drop-in on a
// merchant's page served from another origin, with every sandbox card, and
// then checks the server's side (transaction status, link status, event).
// Each test saves a screenshot of its final screen in
// .cache/screenshots/links/ (SCREENSHOT_DIR overrides) for a person to
// look at.

type web struct {
	*env
	browser context.Context
	shots   string
	shop    *httptest.Server // the merchant's site: another origin than the API
	shopURL string           // http://localhost:<port>; the API is http://127.0.0.1:<port>
	last    atomic.Value     // the session the shop's page opened last
}

func (w *web) lastSession() string { s, _ := w.last.Load().(string); return s }

func newWeb(t *testing.T) *web {
	t.Helper()
	w := &web{browser: browser.New(t)}
	w.env = newEnv(t, embedded)
	w.shots = browser.ScreenshotDir(t) + "/links"
	require.NoError(t, os.MkdirAll(w.shots, 0o755))
	w.shop = httptest.NewServer(http.HandlerFunc(w.serveShop))
	t.Cleanup(w.shop.Close)
	w.shopURL = strings.Replace(w.shop.URL, "127.0.0.1", "localhost", 1)
	return w
}

// tab opens a new tab, closed when the test ends.
func (w *web) tab(t *testing.T) context.Context {
	t.Helper()
	tab, cancel := chromedp.NewContext(w.browser)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(tab, 90*time.Second)
	t.Cleanup(cancelTimeout)
	return ctx
}

func (w *web) shot(t *testing.T, tab context.Context, name string) {
	t.Helper()
	browser.Screenshot(t, tab, w.shots, name)
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

func eval[T any](t *testing.T, tab context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(tab, chromedp.Evaluate[T](js))
	require.NoError(t, err)
	return v
}

var (
	numberField = chromedp.CSS(".pg-card .pg-field--number input")
	expiryField = chromedp.CSS(".pg-card .pg-field--expiry input")
	cvcField    = chromedp.CSS(".pg-card .pg-field--cvc input")
	holderField = chromedp.CSS(".pg-card .pg-field--holder input")
	payButton   = chromedp.CSS(".pg-card button.pg-pay")
)

// fillCard types a card into the Drop-in's fields.
func fillCard(t *testing.T, tab context.Context, number, expiry, cvc string) {
	t.Helper()
	do(t, tab,
		chromedp.WaitVisible(numberField),
		chromedp.SendKeys(numberField, number),
		chromedp.SendKeys(expiryField, expiry),
		chromedp.SendKeys(cvcField, cvc),
		chromedp.SendKeys(holderField, "Aigerim Sandbox"),
	)
}

func pay(t *testing.T, tab context.Context, number string) {
	t.Helper()
	fillCard(t, tab, number, "0330", "737")
	do(t, tab, chromedp.Click(payButton))
}

// challenge answers the sandbox issuer's challenge screen, a frame of the
// page: of the same site on the hosted page, of another site (its own
// target) on a merchant's page.
func challenge(t *testing.T, tab context.Context, password string) {
	t.Helper()
	do(t, tab, chromedp.WaitVisible(chromedp.CSS("iframe.pg-challenge__frame")))
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		infos, err := chromedp.Targets(tab)
		require.NoError(t, err)
		for _, info := range infos {
			if info.Type == "iframe" && strings.Contains(info.URL, "/sandbox/3ds2/challenge") {
				// Cancelling this context closes the frame's target, so it
				// lives until the test ends.
				frame, cancel := chromedp.NewContext(tab, chromedp.WithTargetID(info.TargetID))
				t.Cleanup(cancel)
				do(t, frame, chromedp.WaitVisible(chromedp.CSS("#pg-acs-password")),
					chromedp.SendKeys(chromedp.CSS("#pg-acs-password"), password+kb.Enter))
				return
			}
		}
		// Each look is bounded: a query into the frame's document can wait
		// for ever when the frame navigates to another origin (and becomes a
		// target of its own) under it; the next round finds it there.
		look, cancel := context.WithTimeout(tab, 2*time.Second)
		nodes, err := chromedp.Run(look, chromedp.Nodes(chromedp.CSS("iframe.pg-challenge__frame")))
		var sub []*chromedp.Node
		if err == nil && len(nodes) == 1 && nodes[0].ContentDocument != nil {
			sub, err = chromedp.Run(look, chromedp.Nodes(chromedp.CSS("#pg-acs-password"), chromedp.FromNode(nodes[0]), chromedp.AtLeast(0)))
		}
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			require.NoError(t, err)
		}
		if err == nil {
			if len(sub) == 1 {
				do(t, tab, chromedp.SendKeys(chromedp.CSS("#pg-acs-password"), password+kb.Enter, chromedp.FromNode(nodes[0])))
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the challenge screen did not load")
}

func waitFor(t *testing.T, tab context.Context, sel string) {
	t.Helper()
	do(t, tab, chromedp.WaitVisible(chromedp.CSS(sel)))
}

// noCardDataInTheAddress: the page's address never carries card data.
func noCardDataInTheAddress(t *testing.T, tab context.Context) {
	t.Helper()
	loc, err := chromedp.Run(tab, chromedp.Location())
	require.NoError(t, err)
	assert.Empty(t, cardDataIn(t, loc), "card data in the address %s", loc)
}

// cardDataIn is what of the test cards' data an address holds: a number's
// digit group, the expiry or the CVC the tests type, outside the ids the
// address rightly holds (a UUID or a session id may hold "737" by chance:
// they are taken out first).
func cardDataIn(t *testing.T, loc string) []string {
	u, err := url.Parse(loc)
	require.NoError(t, err)
	rest := addressIDs.ReplaceAllString(u.EscapedPath()+"?"+u.RawQuery+"#"+u.Fragment, "")
	var found []string
	for _, s := range []string{"4111", "5454", "5555", "4000", "737", "0330", "03/30", "03%2F30"} {
		if strings.Contains(rest, s) {
			found = append(found, s)
		}
	}
	return found
}

func TestCardDataInAnAddress(t *testing.T) {
	assert.Empty(t, cardDataIn(t, "http://127.0.0.1:37243/pay/01a20fe1-bdc3-7037-bb95-7af734a07378"))
	assert.Empty(t, cardDataIn(t, "http://127.0.0.1:7370/pay/01a20fe1-bdc3-7037-bb95-7af734a07378?session=CS01A20F7CA737&data=e1.cs1.TY737x"))
	assert.Equal(t, []string{"737"}, cardDataIn(t, "http://127.0.0.1:8080/pay/01a20fe1-bdc3-7037-bb95-7af734a07378?cvc=737"))
	assert.Equal(t, []string{"4111"}, cardDataIn(t, "http://127.0.0.1:8080/pay/x#number=4111111111111111"))
	assert.Equal(t, []string{"03%2F30"}, cardDataIn(t, "http://127.0.0.1:8080/pay/x?expiry=03%2F30"))
}

// addressIDs are the ids an address may carry: UUIDs, and checkout's session
// ids (CS + hex) and sessionData (e1. and base64url).
var addressIDs = regexp.MustCompile(`(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|CS[0-9A-F]{10,}|e1\.[A-Za-z0-9_.-]+`)

// TestBrowserHostedPagePays: an authorising card typed with the keyboard
// alone (labelled fields, Tab between them, Enter to pay) pays the link;
// the success screen, then the redirect to success_url. Server: the link
// paid by the transaction, charged, payment_link.paid written.
func TestBrowserHostedPagePays(t *testing.T) {
	w := newWeb(t)
	l := w.create(map[string]any{"success_url": w.shopURL + "/thanks", "cancel_url": w.shopURL + "/cart",
		"description": "Gift card <b>50</b> & <script>alert('x')</script>"})
	id := l["id"].(string)
	tab := w.tab(t)
	do(t, tab, chromedp.Navigate(l["url"].(string)), chromedp.WaitVisible(numberField))

	// Every field has a label; the description's markup is text.
	assert.True(t, eval[bool](t, tab, `Array.from(document.querySelectorAll('.pg-card input')).every(i => i.labels.length === 1 && i.labels[0].textContent.trim() !== '')`))
	assert.Equal(t, "Gift card <b>50</b> & <script>alert('x')</script>", text(t, tab, ".pg-description"))
	assert.Equal(t, 0, eval[int](t, tab, `document.querySelectorAll('.pg-description *').length`))
	assert.Equal(t, "10.00\u00a0EUR", text(t, tab, ".pg-amount"))

	// Keyboard only: focus the number, type, Tab to each next field, Enter.
	do(t, tab, chromedp.Focus(numberField),
		chromedp.KeyEvent("4111111111111111"+kb.Tab+"0330"+kb.Tab+"737"+kb.Tab+"Aigerim Sandbox"+kb.Enter))
	waitFor(t, tab, ".pg-result--success")
	assert.Equal(t, "Payment successful", text(t, tab, ".pg-result__title"))
	assert.Equal(t, "pg-result__title", eval[string](t, tab, `document.activeElement.className`), "the result takes the focus")
	noCardDataInTheAddress(t, tab)
	w.shot(t, tab, "hosted-authorised")

	got := w.get(id)
	assert.Equal(t, "paid", got["status"])
	tx := w.Do("GET", "/v1/transactions/by-payment-link/"+id, nil).Map(t)
	assert.Equal(t, "charged", tx["status"])
	assert.Equal(t, got["transaction_id"], tx["id"])
	assert.Equal(t, 1, count(w.events(w.Account.ID, id), links.EventPaid))

	// Then the page takes the shopper back to the merchant.
	require.Eventually(t, func() bool {
		loc, err := chromedp.Run(tab, chromedp.Location())
		return err == nil && loc == w.shopURL+"/thanks"
	}, 15*time.Second, 100*time.Millisecond, "redirected to success_url")
}

// TestBrowserHostedPageRefusedThenRetry: a refused card shows the refusal
// with a retry; the retry pays with a good card. Server: one rejected and
// one charged transaction, the link paid once.
func TestBrowserHostedPageRefusedThenRetry(t *testing.T) {
	w := newWeb(t)
	l := w.create(map[string]any{"failure_url": w.shopURL + "/failed"})
	id := l["id"].(string)
	tab := w.tab(t)
	do(t, tab, chromedp.Navigate(l["url"].(string)))
	pay(t, tab, "4000000000000010")
	waitFor(t, tab, ".pg-result--refused")
	assert.Equal(t, "Payment refused", text(t, tab, ".pg-result__title"))
	assert.Contains(t, text(t, tab, ".pg-result"), "Return to Test test", "the failure_url is offered")
	w.shot(t, tab, "hosted-refused")
	assert.Equal(t, "active", w.get(id)["status"])
	ps := w.linkPayments(w.Account.ID, id)
	require.Len(t, ps, 1)
	assert.Equal(t, "rejected", string(ps[0].Status))

	do(t, tab, chromedp.Click(chromedp.CSS(".pg-retry")))
	pay(t, tab, "5555555555554444")
	waitFor(t, tab, ".pg-result--success")
	w.shot(t, tab, "hosted-retry-authorised")
	assert.Equal(t, "paid", w.get(id)["status"])
	assert.Len(t, w.linkPayments(w.Account.ID, id), 2)
	assert.Equal(t, 1, count(w.events(w.Account.ID, id), links.EventPaid))
}

// TestBrowserHostedPageChallenge: the 3-D Secure challenge card shows the
// sandbox issuer's screen; typing the password pays the link. Server: a
// 3-D Secure transaction, charged; the link paid.
func TestBrowserHostedPageChallenge(t *testing.T) {
	w := newWeb(t)
	l := w.create(nil)
	id := l["id"].(string)
	tab := w.tab(t)
	do(t, tab, chromedp.Navigate(l["url"].(string)))
	pay(t, tab, "5454545454545454")
	waitFor(t, tab, ".pg-challenge")
	time.Sleep(300 * time.Millisecond) // the frame paints
	w.shot(t, tab, "hosted-challenge-screen")
	challenge(t, tab, "password")
	waitFor(t, tab, ".pg-result--success")
	w.shot(t, tab, "hosted-challenge-authorised")
	tx := w.Do("GET", "/v1/transactions/by-payment-link/"+id, nil).Map(t)
	assert.Equal(t, "charged", tx["status"])
	assert.Equal(t, true, tx["secure3d"])
	assert.Equal(t, "paid", w.get(id)["status"])
	assert.Equal(t, 1, count(w.events(w.Account.ID, tx["id"].(string)), "payment.authorised"))
}

// TestBrowserHostedPageWrongChallengePassword: a wrong password refuses the
// payment; the link stays active for a retry.
func TestBrowserHostedPageWrongChallengePassword(t *testing.T) {
	w := newWeb(t)
	l := w.create(nil)
	id := l["id"].(string)
	tab := w.tab(t)
	do(t, tab, chromedp.Navigate(l["url"].(string)))
	pay(t, tab, "5454545454545454")
	challenge(t, tab, "not-the-password")
	waitFor(t, tab, ".pg-result--refused")
	w.shot(t, tab, "hosted-challenge-wrong-password")
	assert.Equal(t, "active", w.get(id)["status"])
	ps := w.linkPayments(w.Account.ID, id)
	require.Len(t, ps, 1)
	assert.Equal(t, "rejected", string(ps[0].Status))
	assert.True(t, ps[0].Secure3D)
	assert.Equal(t, 0, count(w.events(w.Account.ID, id), links.EventPaid))
	assert.Equal(t, 1, count(w.events(w.Account.ID, ps[0].ID), "payment.refused"))
}

// TestBrowserHostedPageExpired: an expired link's page says so and offers
// no payment; the expirer stores it with its event.
func TestBrowserHostedPageExpired(t *testing.T) {
	w := newWeb(t)
	w.Clock.Set(time.Now().UTC())
	l := w.create(map[string]any{"expires_at": rfc(w.Clock.Now().Add(time.Hour)), "failure_url": w.shopURL + "/failed"})
	id := l["id"].(string)
	w.Clock.Advance(time.Hour + time.Minute)
	tab := w.tab(t)
	do(t, tab, chromedp.Navigate(l["url"].(string)), chromedp.WaitVisible(chromedp.CSS(".pg-result--expired")))
	assert.Equal(t, "Link expired", text(t, tab, ".pg-result__title"))
	assert.Equal(t, 0, eval[int](t, tab, `document.querySelectorAll('input, .pg-pay').length`), "no payment form")
	w.shot(t, tab, "hosted-expired")
	r := w.page("POST", "/pay/"+id+"/session", nil)
	assert.Equal(t, 409, r.Status, "the API refuses payment")
	_, err := w.links.Expire(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "expired", w.get(id)["status"])
	assert.Equal(t, []string{links.EventExpired}, w.events(w.Account.ID, id))
}

// TestBrowserHostedPageCancelledLink: a cancelled link's page says so.
func TestBrowserHostedPageCancelledLink(t *testing.T) {
	w := newWeb(t)
	l := w.create(nil)
	require.Equal(t, 200, w.Do("POST", "/v1/payment-links/"+l["id"].(string)+"/cancel", nil).Status)
	tab := w.tab(t)
	do(t, tab, chromedp.Navigate(l["url"].(string)), chromedp.WaitVisible(chromedp.CSS(".pg-result--linkCancelled")))
	assert.Equal(t, "Link cancelled", text(t, tab, ".pg-result__title"))
	w.shot(t, tab, "hosted-cancelled")
}

// TestBrowserHostedPagePaidInAnotherTab: two tabs of one link. Both pay at
// the same moment: one payment is authorised, the other tab shows "already
// paid". A third tab, opened before, then tries: "already paid" too.
// Server: one successful transaction, the link paid once.
func TestBrowserHostedPagePaidInAnotherTab(t *testing.T) {
	w := newWeb(t)
	l := w.create(nil)
	id := l["id"].(string)
	tabs := []context.Context{w.tab(t), w.tab(t), w.tab(t)}
	for _, tab := range tabs {
		do(t, tab, chromedp.Navigate(l["url"].(string)), chromedp.WaitVisible(numberField))
	}
	for _, tab := range tabs[:2] {
		fillCard(t, tab, "4111111111111111", "0330", "737")
	}
	var wg sync.WaitGroup
	for _, tab := range tabs[:2] {
		wg.Go(func() { assert.NoError(t, chromedp.Do(tab, chromedp.Click(payButton))) })
	}
	wg.Wait()
	outcome := func(tab context.Context) string {
		do(t, tab, chromedp.WaitVisible(chromedp.CSS(".pg-result--success, .pg-result--paid")))
		return eval[string](t, tab, `document.querySelector('.pg-result').className`)
	}
	a, b := outcome(tabs[0]), outcome(tabs[1])
	assert.ElementsMatch(t, []string{"pg-result pg-result--success", "pg-result pg-result--paid"}, []string{a, b})
	for i, tab := range tabs[:2] {
		kind := "success"
		if strings.Contains(eval[string](t, tab, `document.querySelector('.pg-result').className`), "paid") {
			kind = "already-paid"
			assert.Equal(t, "Already paid", text(t, tab, ".pg-result__title"))
		}
		w.shot(t, tab, fmt.Sprintf("hosted-two-tabs-%d-%s", i+1, kind))
	}
	pay(t, tabs[2], "5555555555554444")
	waitFor(t, tabs[2], ".pg-result--paid")
	w.shot(t, tabs[2], "hosted-third-tab-already-paid")

	ok := 0
	for _, p := range w.linkPayments(w.Account.ID, id) {
		if p.Status.Succeeded() {
			ok++
		}
	}
	assert.Equal(t, 1, ok, "one payment authorised")
	assert.Equal(t, "paid", w.get(id)["status"])
	assert.Equal(t, 1, count(w.events(w.Account.ID, id), links.EventPaid))
}

// TestBrowserHostedPageInRussianAndKazakh: the link's shopper_locale
// chooses the page's language, the Drop-in's included.
func TestBrowserHostedPageInRussianAndKazakh(t *testing.T) {
	w := newWeb(t)
	ru := w.create(map[string]any{"shopper_locale": "ru-RU", "amount": map[string]any{"value": 1250000, "currency": "KZT"}})
	tab := w.tab(t)
	do(t, tab, chromedp.Navigate(ru["url"].(string)), chromedp.WaitVisible(numberField))
	assert.Equal(t, "ru", eval[string](t, tab, `document.documentElement.lang`))
	assert.Equal(t, "12\u00a0500,00\u00a0KZT", text(t, tab, ".pg-amount"))
	assert.Equal(t, "Номер карты", text(t, tab, ".pg-field--number label"))
	pay(t, tab, "4111111111111111")
	waitFor(t, tab, ".pg-result--success")
	assert.Equal(t, "Оплата прошла", text(t, tab, ".pg-result__title"))
	w.shot(t, tab, "hosted-russian-authorised")

	kk := w.create(map[string]any{"shopper_locale": "kk-KZ"})
	tab = w.tab(t)
	do(t, tab, chromedp.Navigate(kk["url"].(string)), chromedp.WaitVisible(numberField))
	assert.Equal(t, "Карта нөмірі", text(t, tab, ".pg-field--number label"))
	fillCard(t, tab, "4111111111111112", "0120", "7")
	do(t, tab, chromedp.Click(payButton))
	waitFor(t, tab, ".pg-field--invalid")
	assert.Equal(t, "Дұрыс карта нөмірін енгізіңіз", text(t, tab, ".pg-field--number .pg-field__error"), "Luhn")
	assert.Equal(t, "Картаның мерзімі өтіп кеткен", text(t, tab, ".pg-field--expiry .pg-field__error"))
	assert.Equal(t, "true", eval[string](t, tab, `document.activeElement.getAttribute('aria-invalid')`), "the first invalid field takes the focus")
	w.shot(t, tab, "hosted-kazakh-invalid-card")
	assert.Empty(t, w.linkPayments(w.Account.ID, kk["id"].(string)), "an invalid card is not sent")
}

// The merchant's page: another origin than the API. It creates a session on
// its server (the secret key stays there), then mounts the Drop-in with a
// client key allowed from its origin, under a strict CSP of its own.
const shopPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sample shop</title>
<link rel="stylesheet" href="{{.API}}/dropin/{{.Version}}/dropin.css">
<style nonce="{{.Nonce}}">body{font-family:system-ui,sans-serif;max-width:440px;margin:24px auto;padding:0 16px}</style>
</head><body>
<h1>Sample shop: checkout</h1>
<div id="dropin" data-config="{{.Config}}"></div>
<p>Result: <output id="result"></output></p>
<ol id="events"></ol>
<script src="{{.API}}/dropin/{{.Version}}/dropin.js"></script>
<script src="/shop.js"></script>
</body></html>`

// shopJS is the merchant's few lines.
const shopJS = `const el = document.getElementById('dropin');
const cfg = JSON.parse(el.dataset.config);
const show = (s) => { document.getElementById('result').textContent = s; };
el.addEventListener('paygate:event', (e) => {
  const li = document.createElement('li');
  li.textContent = e.detail.type + (e.detail.resultCode ? ':' + e.detail.resultCode : '') + (e.detail.reason ? ':' + e.detail.reason : '');
  document.getElementById('events').appendChild(li);
});
PaygateCheckout({ clientKey: cfg.clientKey, session: cfg.session, locale: 'en-US',
  onPaymentCompleted: (r) => show(r.resultCode), onPaymentFailed: (r) => show(r.resultCode),
  onError: (e) => show('error:' + e.code) })
  .then((checkout) => checkout.create('dropin').mount('#dropin'))
  .catch((e) => show('error:' + e.code));`

var shopTmpl = template.Must(template.New("shop").Parse(shopPage))

// advancedJS is the merchant's page in the advanced flow: its server lists
// the methods, makes the payment and sends the details; the Drop-in only
// collects the card and runs the actions.
const advancedJS = `const el = document.getElementById('dropin');
const cfg = JSON.parse(el.dataset.config);
const show = (s) => { document.getElementById('result').textContent = s; };
const post = (path, body) => fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
  .then((r) => r.json());
el.addEventListener('paygate:event', (e) => {
  const li = document.createElement('li');
  li.textContent = e.detail.type + (e.detail.resultCode ? ':' + e.detail.resultCode : '');
  document.getElementById('events').appendChild(li);
});
PaygateCheckout({ paymentMethodsResponse: cfg.methods, amount: cfg.amount, locale: 'en-US', clientEncryptionKey: cfg.key,
  onSubmit: (state, component) => post('/api/payments', state.data).then((r) => component.handleResponse(r)),
  onAdditionalDetails: (state, component) => post('/api/details', state.data).then((r) => component.handleResponse(r)),
  onPaymentCompleted: (r) => show(r.resultCode + ' ' + r.pspReference), onPaymentFailed: (r) => show(r.resultCode),
  onError: (e) => show('error:' + e.code) })
  .then((checkout) => checkout.create('dropin').mount('#dropin'));`

// api calls the API with the merchant's secret key, from the merchant's
// server.
func (w *web) api(path string, body any) (map[string]any, error) {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", w.URL+path, bytes.NewReader(b))
	req.Header.Set("Authorization", w.Key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var out map[string]any
	err = json.NewDecoder(res.Body).Decode(&out)
	return out, err
}

// serveShop is the merchant's site: / is the checkout page of a new session
// (?key= names the client key to use), /shop.js its script.
func (w *web) serveShop(rw http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/shop.js":
		rw.Header().Set("Content-Type", "text/javascript")
		_, _ = io.WriteString(rw, shopJS)
	case "/advanced.js":
		rw.Header().Set("Content-Type", "text/javascript")
		_, _ = io.WriteString(rw, advancedJS)
	case "/advanced":
		amount := map[string]any{"value": 4200, "currency": "EUR"}
		methods, err := w.api("/v2/paymentMethods", map[string]any{"amount": amount, "countryCode": "NL", "channel": "Web"})
		if err != nil {
			http.Error(rw, err.Error(), http.StatusInternalServerError)
			return
		}
		// The card key, as the merchant's server lists it (GET
		// /v1/payments/direct/keys' first key: its kid and jwk).
		keys, err := checkout.CardKeyring(w.Deps)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusInternalServerError)
			return
		}
		k, _, err := keys.Current(r.Context())
		if err != nil {
			http.Error(rw, err.Error(), http.StatusInternalServerError)
			return
		}
		jwk, _ := k.JWKMap()
		cfg, _ := json.Marshal(map[string]any{"methods": methods, "amount": amount, "key": map[string]any{"kid": k.KID, "jwk": jwk}})
		page := strings.Replace(strings.Replace(shopPage, "/shop.js", "/advanced.js", 1), "Sample shop: checkout", "Sample shop: advanced flow", 1)
		rw.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self' "+w.URL+"; style-src "+w.URL+" 'nonce-n0nce'; connect-src 'self'; frame-src "+w.URL)
		_ = template.Must(template.New("advanced").Parse(page)).Execute(rw, map[string]string{"API": w.URL, "Version": dropin.Version, "Config": string(cfg), "Nonce": "n0nce"})
	case "/api/payments", "/api/details":
		var in map[string]any
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		path := "/v2/payments/details"
		if r.URL.Path == "/api/payments" {
			path = "/v2/payments"
			in["amount"] = map[string]any{"value": 4200, "currency": "EUR"}
			in["reference"] = "shop-advanced-1"
			in["returnUrl"] = w.shopURL + "/advanced"
		}
		out, err := w.api(path, in)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadGateway)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(rw).Encode(out)
	case "/":
		body, _ := json.Marshal(map[string]any{"amount": map[string]any{"value": 2500, "currency": "EUR"}, "reference": "shop-order-1",
			"returnUrl": w.shopURL + "/return", "countryCode": "NL", "channel": "Web"})
		req, _ := http.NewRequest("POST", w.URL+"/v2/sessions", bytes.NewReader(body))
		req.Header.Set("Authorization", w.Key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusInternalServerError)
			return
		}
		defer res.Body.Close()
		var s struct {
			ID          string `json:"id"`
			SessionData string `json:"sessionData"`
		}
		_ = json.NewDecoder(res.Body).Decode(&s)
		w.last.Store(s.ID)
		cfg, _ := json.Marshal(map[string]any{"clientKey": r.URL.Query().Get("key"), "session": s})
		nonce := "n0nce"
		rw.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self' "+w.URL+"; style-src "+w.URL+" 'nonce-"+nonce+"'; connect-src "+w.URL+"; frame-src "+w.URL)
		_ = shopTmpl.Execute(rw, map[string]string{"API": w.URL, "Version": dropin.Version, "Config": string(cfg), "Nonce": nonce})
	default:
		_, _ = io.WriteString(rw, "<!doctype html><title>shop</title><h1>"+template.HTMLEscapeString(r.URL.Path)+"</h1>")
	}
}

// TestBrowserDropinOnAMerchantsPage: the Drop-in on a page of another origin
// (CORS preflights decided by the session's client keys) pays a session with
// an authorising card, then another with the 3-D Secure challenge (the
// issuer's screen in a frame of a third site), raising Update, Action and
// Finished. Server: each session completed, its transaction charged.
func TestBrowserDropinOnAMerchantsPage(t *testing.T) {
	w := newWeb(t)
	ck := w.NewClientKey(w.shopURL)

	tab := w.tab(t)
	do(t, tab, chromedp.Navigate(w.shopURL+"/?key="+ck), chromedp.WaitVisible(numberField))
	first := w.lastSession()
	pay(t, tab, "4111111111111111")
	do(t, tab, chromedp.WaitVisible(chromedp.CSS(".pg-result--success")))
	assert.Equal(t, "Authorised", text(t, tab, "#result"))
	assert.Equal(t, "Update\nFinished:authorised", text(t, tab, "#events"))
	noCardDataInTheAddress(t, tab)
	w.shot(t, tab, "dropin-authorised")
	res := w.Do("GET", "/v2/sessions/"+first, nil).Map(t)
	assert.Equal(t, "completed", res["status"])
	psp := res["payments"].([]any)[0].(map[string]any)["pspReference"].(string)
	assert.Equal(t, "charged", w.Do("GET", "/v1/transactions/"+psp, nil).Map(t)["status"])
	assert.Equal(t, 1, count(w.events(w.Account.ID, psp), "payment.authorised"))

	tab = w.tab(t)
	do(t, tab, chromedp.Navigate(w.shopURL+"/?key="+ck), chromedp.WaitVisible(numberField))
	second := w.lastSession()
	pay(t, tab, "5454545454545454")
	challenge(t, tab, "password")
	do(t, tab, chromedp.WaitVisible(chromedp.CSS(".pg-result--success")))
	assert.Equal(t, "Update\nAction\nAction\nFinished:authorised", text(t, tab, "#events"))
	w.shot(t, tab, "dropin-challenge-authorised")
	res = w.Do("GET", "/v2/sessions/"+second, nil).Map(t)
	assert.Equal(t, "completed", res["status"])
	psp = res["payments"].([]any)[0].(map[string]any)["pspReference"].(string)
	tx := w.Do("GET", "/v1/transactions/"+psp, nil).Map(t)
	assert.Equal(t, "charged", tx["status"])
	assert.Equal(t, true, tx["secure3d"])
}

// TestBrowserDropinFromAnOriginTheKeyDoesNotAllow: the same page with a
// client key allowed only from another origin: the browser's preflight is
// refused (no Access-Control-Allow-Origin), so the Drop-in cannot load the
// session and says so; nothing reaches a payment.
func TestBrowserDropinFromAnOriginTheKeyDoesNotAllow(t *testing.T) {
	w := newWeb(t)
	ck := w.NewClientKey("https://elsewhere.example.com")
	tab := w.tab(t)
	do(t, tab, chromedp.Navigate(w.shopURL+"/?key="+ck))
	require.Eventually(t, func() bool { return text(t, tab, "#result") != "" }, 20*time.Second, 100*time.Millisecond)
	assert.Equal(t, "error:network_error", text(t, tab, "#result"))
	w.shot(t, tab, "dropin-origin-not-allowed")
	res := w.Do("GET", "/v2/sessions/"+w.lastSession(), nil).Map(t)
	assert.Equal(t, "active", res["status"])
	assert.Empty(t, res["payments"])
}

// TestBrowserDropinAdvancedFlow: the Drop-in with callbacks (the advanced
// flow, the card encrypted to the key the merchant's page is given): the
// merchant's server lists the methods, makes the payment with
// the 3-D Secure challenge card and sends each action's details; the
// Drop-in runs the fingerprint and the issuer's challenge. Server: the
// transaction charged, with 3-D Secure.
func TestBrowserDropinAdvancedFlow(t *testing.T) {
	w := newWeb(t)
	tab := w.tab(t)
	rec := record(t, tab)
	do(t, tab, chromedp.Navigate(w.shopURL+"/advanced"), chromedp.WaitVisible(numberField))
	assert.Equal(t, "Pay €42.00", text(t, tab, ".pg-card button.pg-pay"))
	pay(t, tab, "5454545454545454")
	challenge(t, tab, "password")
	do(t, tab, chromedp.WaitVisible(chromedp.CSS(".pg-result--success")))
	res := text(t, tab, "#result")
	require.True(t, strings.HasPrefix(res, "Authorised "), res)
	assert.Equal(t, "Update\nAction\nAction\nFinished:authorised", text(t, tab, "#events"))
	w.shot(t, tab, "dropin-advanced-challenge-authorised")
	tx := w.Do("GET", "/v1/transactions/"+strings.TrimPrefix(res, "Authorised "), nil).Map(t)
	assert.Equal(t, "charged", tx["status"])
	assert.Equal(t, true, tx["secure3d"])
	assert.Equal(t, "shop-advanced-1", tx["merchant_reference"])
	// The card left the page encrypted (to the key the merchant's server
	// gave it), for the merchant's server to forward.
	reqs := rec.requests(t, tab)
	assertNothingInClear(t, reqs, typedCard{number: "5454545454545454", cvc: "737", holder: "Aigerim Sandbox"})
	w.openFields(t, payment(t, reqs)["paymentMethod"].(map[string]any))
}

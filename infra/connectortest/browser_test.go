package connectortest

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/testkit/apitest/browser"
)

// challengeInTheBrowser pays a payment link of A's on its hosted page in
// headless Chromium with the 3-D Secure challenge card: A's Drop-in
// encrypts the card to A's key, A opens it and sends it to B encrypted to
// B's, B asks for the device fingerprint and then the challenge, A relays
// both to the page, the shopper types the password in the issuer's screen,
// and the result goes back through A to B.
func (p *pair) challengeInTheBrowser(t *testing.T) {
	ctx := browser.New(t)
	shots := filepath.Join(browser.ScreenshotDir(t), "connector")
	require.NoError(t, os.MkdirAll(shots, 0o755))
	st, link := call(t, p.a.url, p.keyA, "POST", "/v1/payment-links", map[string]any{
		"amount": map[string]any{"value": 5100, "currency": "EUR"}, "description": "Order 77 through the connector",
		"order_reference": "order-77"}, "Idempotency-Key", randomKey("idem-"))
	require.Equal(t, http.StatusCreated, st, "%v", link)

	tab, cancel := chromedp.NewContext(ctx)
	defer cancel()
	tab, cancelTimeout := context.WithTimeout(tab, 90*time.Second)
	defer cancelTimeout()
	number := chromedp.CSS(".pg-card .pg-field--number input")
	run(t, tab, chromedp.Navigate(link["url"].(string)),
		chromedp.WaitVisible(number),
		chromedp.SendKeys(number, "5454545454545454"),
		chromedp.SendKeys(chromedp.CSS(".pg-card .pg-field--expiry input"), "0330"),
		chromedp.SendKeys(chromedp.CSS(".pg-card .pg-field--cvc input"), "737"),
		chromedp.SendKeys(chromedp.CSS(".pg-card .pg-field--holder input"), "Aigerim Connector"),
		chromedp.Click(chromedp.CSS(".pg-card button.pg-pay")),
		chromedp.WaitVisible(chromedp.CSS(".pg-challenge")),
	)
	time.Sleep(300 * time.Millisecond) // the frame paints
	browser.Screenshot(t, tab, shots, "connector-challenge-screen")
	typePassword(t, tab, "password")
	run(t, tab, chromedp.WaitVisible(chromedp.CSS(".pg-result--success")))
	browser.Screenshot(t, tab, shots, "connector-challenge-authorised")

	st, tx := call(t, p.a.url, p.keyA, "GET", "/v1/transactions/by-payment-link/"+link["id"].(string), nil)
	require.Equal(t, http.StatusOK, st, "%v", tx)
	assert.Equal(t, "charged", tx["status"])
	assert.Equal(t, true, tx["secure3d"])
	p.sameState(t, tx["id"].(string))
	assert.Equal(t, true, p.onB(t, tx["id"].(string))["secure3d"], "B ran the 3-D Secure")
}

func run(t *testing.T, tab context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	require.NoError(t, chromedp.Do(tab, actions...))
}

// typePassword answers the issuer's challenge screen, a frame of the page
// (as shared/pay/links' browser tests do).
func typePassword(t *testing.T, tab context.Context, password string) {
	t.Helper()
	run(t, tab, chromedp.WaitVisible(chromedp.CSS("iframe.pg-challenge__frame")))
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		infos, err := chromedp.Targets(tab)
		require.NoError(t, err)
		for _, info := range infos {
			if info.Type == "iframe" && strings.Contains(info.URL, "/sandbox/3ds2/challenge") {
				frame, cancel := chromedp.NewContext(tab, chromedp.WithTargetID(info.TargetID))
				t.Cleanup(cancel)
				run(t, frame, chromedp.WaitVisible(chromedp.CSS("#pg-acs-password")),
					chromedp.SendKeys(chromedp.CSS("#pg-acs-password"), password+kb.Enter))
				return
			}
		}
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
		if err == nil && len(sub) == 1 {
			run(t, tab, chromedp.SendKeys(chromedp.CSS("#pg-acs-password"), password+kb.Enter, chromedp.FromNode(nodes[0])))
			return
		}
	}
	t.Fatal("the challenge screen did not load")
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/pay/links"

	"github.com/chromedp/chromedp"

	"github.com/paygate/paygate/infra/invoke/sample"
	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/pay/dropin"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/testkit/apitest/browser"
)

// linkServer serves the links API and the hosted page over d, with the
// sample key's account.
func linkServer(ctx context.Context, d *app.Deps) (*httptest.Server, error) {
	if _, err := sample.EnsureAccount(ctx, d.Accounts, d.Keys); err != nil {
		return nil, err
	}
	var groups []httpapi.Group
	for _, b := range []app.HTTPBuilder{links.BuildPaymentLinks, links.BuildHostedPage} {
		g, err := b(d)
		if err != nil {
			return nil, err
		}
		groups = append(groups, g)
	}
	return httptest.NewServer(d.Server(groups...)), nil
}

// call sends a request to srv and answers the status and body.
func call(ctx context.Context, srv *httptest.Server, method, path, key string, body any, h ...string) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, srv.URL+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", key)
	}
	for i := 0; i+1 < len(h); i += 2 {
		req.Header.Set(h[i], h[i+1])
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	return res.StatusCode, raw, err
}

func newLink(ctx context.Context, srv *httptest.Server) (string, error) {
	st, raw, err := call(ctx, srv, "POST", "/v1/payment-links", sample.Key,
		map[string]any{"amount": map[string]any{"value": 125000, "currency": "KZT"}, "description": "Two concert tickets"})
	if err != nil {
		return "", err
	}
	if st != http.StatusCreated {
		return "", fmt.Errorf("create a link: %d %s", st, raw)
	}
	var l struct{ ID string }
	return l.ID, json.Unmarshal(raw, &l)
}

// linkDynamoRows reports the DynamoDB calls of creating a link and serving
// its page on DynamoDB Local (shared/pay/links calls_test.go asserts the same
// counts).
func linkDynamoRows(ctx context.Context) ([]row, error) {
	endpoint := os.Getenv("DYNAMODB_ENDPOINT")
	if endpoint == "" {
		return []row{{name: "DynamoDB calls per payment link and page", value: "skipped: DYNAMODB_ENDPOINT unset", target: "-", ok: "-"}}, nil
	}
	counter := dynamostore.NewCallCounter()
	d, _, cleanup, err := dynamoDeps(ctx, endpoint, counter.Option())
	if err != nil {
		return nil, err
	}
	defer cleanup()
	srv, err := linkServer(ctx, d)
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	counted := func(f func() error) (map[string]int, error) {
		counter.Reset()
		err := f()
		return counter.Counts(), err
	}
	var id string
	create, err := counted(func() (err error) { id, err = newLink(ctx, srv); return err })
	if err != nil {
		return nil, err
	}
	page, err := counted(func() error {
		st, raw, err := call(ctx, srv, "GET", "/pay/"+id, "", nil)
		if err == nil && st != http.StatusOK {
			err = fmt.Errorf("page: %d %s", st, raw)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	session, err := counted(func() error {
		st, raw, err := call(ctx, srv, "POST", "/pay/"+id+"/session", "", map[string]any{})
		if err == nil && st != http.StatusOK {
			err = fmt.Errorf("session: %d %s", st, raw)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return []row{
		{name: "calls: POST /v1/payment-links", value: formatCounts(create), target: "key + merchant name GetItem, one write call, no Scan",
			ok: verdict(create["GetItem"] == 2 && writeCalls(create) == 1 && total(create) == 3)},
		{name: "calls: GET /pay/{id} (the hosted page)", value: formatCounts(page), target: "GetItem=1", ok: verdict(page["GetItem"] == 1 && total(page) == 1)},
		{name: "calls: POST /pay/{id}/session, first", value: formatCounts(session), target: "link GetItem, one write call",
			ok: verdict(session["GetItem"] == 1 && writeCalls(session) == 1 && total(session) == 2)},
	}, nil
}

// hostedPageRows measures the hosted page's first load: the bytes of its
// HTML, script and stylesheet as sent gzipped, and, in headless Chromium
// (fresh profile, cache off), the time from navigation to interactive (the
// Drop-in's pay button present, after the session and setup calls) and the
// bytes received. Median of runs loads.
func hostedPageRows(ctx context.Context) ([]row, error) {
	d, cleanup, err := embeddedDeps("paygate-bench-page-")
	if err != nil {
		return nil, err
	}
	defer cleanup()
	srv, err := linkServer(ctx, d)
	if err != nil {
		return nil, err
	}
	defer srv.Close()

	// Bytes as sent to a client that takes gzip (what API Gateway passes on).
	id, err := newLink(ctx, srv)
	if err != nil {
		return nil, err
	}
	files := []string{"/pay/" + id}
	for _, f := range []string{"dropin.js", "dropin.css", "hosted.js"} {
		files = append(files, "/dropin/"+dropin.Version+"/"+f)
	}
	var parts []string
	sum := 0
	for _, p := range files {
		status, raw, err := call(ctx, srv, "GET", p, "", nil, "Accept-Encoding", "gzip")
		if err != nil {
			return nil, err
		}
		if status != http.StatusOK {
			return nil, fmt.Errorf("GET %s: %d", p, status)
		}
		sum += len(raw)
		parts = append(parts, fmt.Sprintf("%s %d", p[strings.LastIndex(p, "/")+1:], len(raw)))
	}
	parts[0] = "page " + strings.SplitN(parts[0], " ", 2)[1]
	rows := []row{{name: "hosted page first load, bodies gzipped (HTML + JS + CSS)", value: fmt.Sprintf("%d B (%s)", sum, strings.Join(parts, ", ")),
		target: "<= 30 KB", ok: verdict(sum <= 30*1024)}}

	if browser.Path() == "" {
		return append(rows, row{name: "hosted page time to interactive (headless Chromium)", value: "skipped: " + browser.ErrNoBrowser.Error(), target: "-", ok: "-"}), nil
	}
	const runs = 7
	var ttis, received []float64
	for range runs {
		tti, bytes, err := loadPage(ctx, srv)
		if err != nil {
			return nil, err
		}
		ttis, received = append(ttis, tti), append(received, bytes)
	}
	slices.Sort(ttis)
	slices.Sort(received)
	return append(rows,
		row{name: fmt.Sprintf("hosted page time to interactive, headless Chromium, local (median of %d)", runs),
			value: fmt.Sprintf("%.0f ms (min %.0f, max %.0f)", ttis[runs/2], ttis[0], ttis[runs-1]), target: "report", ok: "-"},
		row{name: "hosted page bytes received by Chromium, first load (page, files and the Drop-in's calls, headers included)",
			value: fmt.Sprintf("%.0f B", received[runs/2]), target: "report", ok: "-"},
	), nil
}

// loadPage loads a new link's page in a fresh Chromium and answers the time
// to interactive (ms from navigation start) and the bytes it received.
func loadPage(ctx context.Context, srv *httptest.Server) (tti, received float64, err error) {
	id, err := newLink(ctx, srv)
	if err != nil {
		return 0, 0, err
	}
	dir, err := os.MkdirTemp("", "paygate-bench-chromium-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	bctx, cancel, err := browser.Start(ctx, dir)
	if err != nil {
		return 0, 0, err
	}
	defer cancel()
	tab, cancelTab := chromedp.NewContext(bctx)
	defer cancelTab()
	tab, cancelTimeout := context.WithTimeout(tab, 60*time.Second)
	defer cancelTimeout()
	if err := chromedp.Do(tab, chromedp.Navigate(srv.URL+"/pay/"+id)); err != nil {
		return 0, 0, err
	}
	// The moment the pay button exists, in the page's own clock.
	tti, err = chromedp.Run(tab, chromedp.Evaluate[float64](`new Promise((resolve) => {
		const look = () => document.querySelector('.pg-card button.pg-pay') ? resolve(performance.now()) : requestAnimationFrame(look);
		look();
	})`, chromedp.EvalAwaitPromise))
	if err != nil {
		return 0, 0, err
	}
	received, err = chromedp.Run(tab, chromedp.Evaluate[float64](`performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))
		.reduce((n, e) => n + e.transferSize, 0)`))
	if err == nil && received == 0 {
		err = errors.New("no transfer sizes (resource timing)")
	}
	return tti, received, err
}

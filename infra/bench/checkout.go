package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/paygate/paygate/infra/bench/load"
	"github.com/paygate/paygate/infra/invoke/sample"
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/httpapi"
	"github.com/paygate/paygate/shared/store/boltstore"
	"github.com/paygate/paygate/shared/store/dynamostore"
	"github.com/paygate/paygate/shared/wiring"
)

// checkoutSteps adds the checkout rows (issue 4) to the run: throughput of
// sessions and authorised card payments through the HTTP server, each beside
// the GET /health baseline, and the DynamoDB calls of each.
func checkoutSteps(ctx context.Context, o options, step func(string, func() ([]row, error))) {
	step("load checkout", func() ([]row, error) { return checkoutLoad(ctx, o) })
	step("DynamoDB calls per checkout request", func() ([]row, error) { return checkoutDynamoRows(ctx) })
}

// checkoutServer serves every HTTP group over a fresh embedded store with
// the sample account in it (its key authenticates the load), on a real
// socket, as the local gateway does.
func checkoutServer(ctx context.Context) (string, func(), error) {
	dir, err := os.MkdirTemp("", "paygate-bench-checkout-")
	if err != nil {
		return "", nil, err
	}
	st, err := boltstore.Open(filepath.Join(dir, "store.db"), nil)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	cleanup := func() { st.Close(); os.RemoveAll(dir) }
	d := app.WithStore(st, nil, nil, nil)
	if _, err := sample.EnsureAccount(ctx, d.Accounts, d.Keys); err != nil {
		cleanup()
		return "", nil, err
	}
	var groups []httpapi.Group
	for _, build := range wiring.HTTP() {
		g, err := build(d)
		if err != nil {
			cleanup()
			return "", nil, err
		}
		groups = append(groups, g)
	}
	srv := httptest.NewServer(d.Server(groups...))
	return srv.URL, func() { srv.Close(); cleanup() }, nil
}

// loadCase is one measured route: the request of index i and the status a
// success gets.
type loadCase struct {
	name, path string
	body       func(i int) []byte
	headers    func(i int) http.Header
	want       int
	unit       string
	check      func(body []byte) error // one request before the run must pass it
}

// checkoutCases are the two promises: a session created, a card payment
// authorised (4111 1111 1111 1111 authorises at once; a unique
// Idempotency-Key per request makes each one a new payment, written
// together with its idempotency record). runID keeps keys unique across runs.
func checkoutCases(runID int64) []loadCase {
	auth := func(extra ...string) func(int) http.Header {
		return func(i int) http.Header {
			h := http.Header{"Authorization": {sample.Key}, "Content-Type": {"application/json"}}
			if len(extra) > 0 {
				h.Set("Idempotency-Key", fmt.Sprintf("%s-%d-%d", extra[0], runID, i))
			}
			return h
		}
	}
	return []loadCase{
		{
			name: "POST /v2/sessions", path: "/v2/sessions", want: http.StatusCreated, unit: "sessions/s",
			headers: auth(),
			body: func(i int) []byte {
				return fmt.Appendf(nil, `{"amount":{"value":1000,"currency":"EUR"},"reference":"bench-%d-%d",`+
					`"returnUrl":"https://shop.example/return","countryCode":"NL","channel":"Web"}`, runID, i)
			},
			check: func(b []byte) error { return expectField(b, "sessionData") },
		},
		{
			name: "POST /v2/payments (card authorised)", path: "/v2/payments", want: http.StatusOK, unit: "payments/s",
			headers: auth("bench-pay"),
			body: func(i int) []byte {
				return fmt.Appendf(nil, `{"amount":{"value":1000,"currency":"EUR"},"reference":"bench-pay-%d-%d",`+
					`"returnUrl":"https://shop.example/return","paymentMethod":{"type":"scheme",`+
					`"encryptedCardNumber":"test_4111111111111111","encryptedExpiryMonth":"test_03",`+
					`"encryptedExpiryYear":"test_2030","encryptedSecurityCode":"test_737"}}`, runID, i)
			},
			check: func(b []byte) error {
				var v struct{ ResultCode string }
				if err := json.Unmarshal(b, &v); err != nil || v.ResultCode != "Authorised" {
					return fmt.Errorf("resultCode is not Authorised: %s", b)
				}
				return nil
			},
		},
	}
}

func expectField(body []byte, field string) error {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil || m[field] == nil {
		return fmt.Errorf("no %s in %s", field, body)
	}
	return nil
}

// probe sends request -1 of c once and checks it really succeeds, so the
// load measures successes, not cheap errors.
func probe(ctx context.Context, base string, c loadCase) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+c.path, bytes.NewReader(c.body(-1)))
	if err != nil {
		return err
	}
	req.Header = c.headers(-1)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != c.want {
		return fmt.Errorf("%s answered %d: %s", c.name, resp.StatusCode, b)
	}
	return c.check(b)
}

// checkoutLoad measures GET /health, then each checkout case, on one
// in-process server, so the ratios compare like with like.
func checkoutLoad(ctx context.Context, o options) ([]row, error) {
	base, closeSrv, err := checkoutServer(ctx)
	if err != nil {
		return nil, err
	}
	defer closeSrv()
	conc := o.concurrency
	health, err := load.Run(ctx, load.Config{URL: base + "/health", Concurrency: conc, Duration: o.loadFor})
	if err != nil {
		return nil, err
	}
	if health.RPS == 0 || health.StatusCounts[200] != health.Requests {
		return nil, fmt.Errorf("/health baseline failed: %s", formatStatuses(health.StatusCounts))
	}
	var rows []row
	for _, c := range checkoutCases(time.Now().UnixNano()) {
		if err := probe(ctx, base, c); err != nil {
			return rows, err
		}
		res, err := load.Run(ctx, load.Config{URL: base + c.path, Method: http.MethodPost, Body: c.body, Headers: c.headers,
			Concurrency: conc, Duration: o.loadFor})
		if err != nil {
			return rows, err
		}
		ok := res.Errors == 0 && res.Requests > 0 && res.StatusCounts[c.want] == res.Requests
		rows = append(rows, row{
			name: fmt.Sprintf("load %s in-process, %d workers, %s", c.name, conc, o.loadFor),
			value: fmt.Sprintf("%.0f %s (%.2fx of /health %.0f req/s), p50 %s (/health %s), p99 %s (/health %s), %s",
				res.RPS, c.unit, res.RPS/health.RPS, health.RPS, res.P50, health.P50, res.P99, health.P99, formatStatuses(res.StatusCounts)),
			target: fmt.Sprintf("report beside /health, all %d", c.want),
			ok:     verdict(ok),
		})
	}
	return rows, nil
}

// checkoutDynamoRows reports the DynamoDB calls of a session and of an
// authorised card payment on DynamoDB Local (shared/checkout's calls_test.go
// asserts the same counts).
func checkoutDynamoRows(ctx context.Context) ([]row, error) {
	endpoint := os.Getenv("DYNAMODB_ENDPOINT")
	if endpoint == "" {
		return []row{{name: "DynamoDB calls per checkout request", value: "skipped: DYNAMODB_ENDPOINT unset", target: "-", ok: "-"}}, nil
	}
	c, err := measureCheckoutCalls(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	writes := func(m map[string]int) int {
		return m["PutItem"] + m["UpdateItem"] + m["TransactWriteItems"] + m["BatchWriteItem"]
	}
	oneWrite := func(m map[string]int, reads int) bool {
		return m["Scan"] == 0 && m["GetItem"] == reads && writes(m) == 1 && total(m) == reads+1
	}
	return []row{
		{name: "DynamoDB calls: POST /v2/sessions", value: formatCounts(c.session), target: "key GetItem + one write call, no Scan", ok: verdict(oneWrite(c.session, 1))},
		{name: "DynamoDB calls: POST /v2/sessions with Idempotency-Key", value: formatCounts(c.sessionKeyed), target: "key + idempotency GetItem + one write call", ok: verdict(oneWrite(c.sessionKeyed, 2))},
		{name: "DynamoDB calls: card payment authorised (/v2/payments)", value: formatCounts(c.payment), target: "key GetItem + one write call, no Scan", ok: verdict(oneWrite(c.payment, 1))},
	}, nil
}

type checkoutCalls struct{ session, sessionKeyed, payment map[string]int }

func measureCheckoutCalls(ctx context.Context, endpoint string) (checkoutCalls, error) {
	var out checkoutCalls
	counter := dynamostore.NewCallCounter()
	d, _, cleanup, err := dynamoDeps(ctx, endpoint, counter.Option())
	if err != nil {
		return out, err
	}
	defer cleanup()
	var groups []httpapi.Group
	for _, build := range []app.HTTPBuilder{wiring.CheckoutSessions, wiring.CheckoutPayments} {
		g, err := build(d)
		if err != nil {
			return out, err
		}
		groups = append(groups, g)
	}
	srv := httptest.NewServer(d.Server(groups...))
	defer srv.Close()
	cases := checkoutCases(time.Now().UnixNano())
	measure := func(c loadCase, i int, idemKey string) (map[string]int, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+c.path, bytes.NewReader(c.body(i)))
		if err != nil {
			return nil, err
		}
		req.Header = c.headers(i)
		if idemKey == "" {
			req.Header.Del("Idempotency-Key")
		} else {
			req.Header.Set("Idempotency-Key", idemKey)
		}
		counter.Reset()
		resp, err := srv.Client().Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != c.want {
			return nil, fmt.Errorf("%s answered %d: %s", c.name, resp.StatusCode, strings.TrimSpace(string(b)))
		}
		return counter.Counts(), c.check(b)
	}
	if out.session, err = measure(cases[0], 1, ""); err != nil {
		return out, err
	}
	if out.sessionKeyed, err = measure(cases[0], 2, fmt.Sprintf("bench-session-%d", time.Now().UnixNano())); err != nil {
		return out, err
	}
	out.payment, err = measure(cases[1], 1, "")
	return out, err
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/paygate/paygate/infra/invoke/sample"
	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/pay/transactions"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/providers/adyencheckout"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// connectorPayments is how many payments each side of the connector step
// makes, one after another.
const connectorPayments = 200

// countingTransport counts the calls that leave for the provider.
type countingTransport struct {
	n    atomic.Int64
	next http.RoundTripper
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

// oneConnector is a Directory with one connector for every account's mode.
type oneConnector struct{ p cards.Processor }

func (o oneConnector) CardConnector(context.Context, string, bool) (string, cards.Processor, error) {
	return "conn_bench", o.p, nil
}

func (o oneConnector) CardConnectorByID(context.Context, string, string) (cards.Processor, error) {
	return o.p, nil
}

// inProcess is a gateway's groups over its own embedded store, the sample
// account in it.
type inProcess struct {
	d     *app.Deps
	h     http.Handler
	close func()
}

func newInProcess(ctx context.Context, name string, setup func(*app.Deps), builders ...app.HTTPBuilder) (*inProcess, error) {
	dir, err := os.MkdirTemp("", "paygate-bench-"+name+"-")
	if err != nil {
		return nil, err
	}
	st, err := boltstore.Open(filepath.Join(dir, "store.db"), nil)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	g := &inProcess{close: func() { st.Close(); os.RemoveAll(dir) }}
	g.d = app.WithStore(st, nil, nil, nil)
	if setup != nil {
		setup(g.d)
	}
	if _, err := sample.EnsureAccount(ctx, g.d.Accounts, g.d.Keys); err != nil {
		g.close()
		return nil, err
	}
	groups := make([]httpapi.Group, 0, len(builders))
	for _, b := range builders {
		grp, err := b(g.d)
		if err != nil {
			g.close()
			return nil, err
		}
		groups = append(groups, grp)
	}
	g.h = g.d.Server(groups...)
	return g, nil
}

// pay makes one card payment of 1000 EUR cents with manual capture and
// answers its pspReference and how long the call took.
func benchPay(h http.Handler, i int) (string, time.Duration, error) {
	body, _ := json.Marshal(map[string]any{
		"merchantAccount": sample.MerchantAccount, "amount": map[string]any{"value": 1000, "currency": "EUR"},
		"reference": fmt.Sprintf("bench-%d", i), "returnUrl": "https://shop.example/return",
		"paymentMethod": map[string]any{"type": "scheme", "number": "4111111111111111", "expiryMonth": "03",
			"expiryYear": "2030", "cvc": "737", "holderName": "Bench"},
		"additionalData": map[string]any{"manualCapture": "true"},
	})
	req := httptest.NewRequest("POST", "/v2/payments", bytes.NewReader(body))
	req.Header.Set("Authorization", sample.Key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", fmt.Sprintf("bench-connector-%d-%d", time.Now().UnixNano(), i))
	rec := httptest.NewRecorder()
	start := time.Now()
	h.ServeHTTP(rec, req)
	took := time.Since(start)
	var out struct {
		ResultCode   string `json:"resultCode"`
		PSPReference string `json:"pspReference"`
	}
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &out) != nil || out.ResultCode != "Authorised" {
		return "", took, fmt.Errorf("payment %d: %d %s", i, rec.Code, rec.Body.String())
	}
	return out.PSPReference, took, nil
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(float64(len(s)-1)*p)]
}

// connectorRows measures what the Adyen connector adds to a card payment:
// gateway B (this service's /v2 face over the sandbox, in this process,
// behind a real loopback HTTP server) takes payments directly, then gateway
// A takes the same payments through its connector to B. The difference is
// the connector's cost: one provider call per authorisation (and one per
// capture, cancel or refund), and its latency.
func connectorRows(ctx context.Context) ([]row, error) {
	b, err := newInProcess(ctx, "adyen", nil, checkout.BuildCheckoutPayments, transactions.BuildCheckoutModifications)
	if err != nil {
		return nil, err
	}
	defer b.close()
	srv := httptest.NewServer(b.h)
	defer srv.Close()
	tr := &countingTransport{next: http.DefaultTransport}
	a, err := newInProcess(ctx, "gateway", func(d *app.Deps) {
		p, perr := adyencheckout.New(adyencheckout.Config{ID: "conn_bench", Account: "acct_bench", URL: srv.URL + "/v2",
			MerchantAccount: sample.MerchantAccount, APIKey: sample.Key, Client: &http.Client{Transport: tr}})
		if perr != nil {
			err = perr
			return
		}
		d.Connectors.CardConnectors = oneConnector{p}
	}, checkout.BuildCheckoutPayments)
	if err != nil {
		return nil, err
	}
	defer a.close()

	var direct, through []time.Duration
	for i := range connectorPayments {
		_, took, err := benchPay(b.h, i)
		if err != nil {
			return nil, fmt.Errorf("direct to B: %w", err)
		}
		direct = append(direct, took)
	}
	for i := range connectorPayments {
		_, took, err := benchPay(a.h, i)
		if err != nil {
			return nil, fmt.Errorf("through the connector: %w", err)
		}
		through = append(through, took)
	}
	calls := float64(tr.n.Load()) / connectorPayments
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
	return []row{
		{name: "provider calls per card payment through the connector", value: fmt.Sprintf("%.2f", calls), target: "1 (the authorisation)", ok: verdict(calls == 1)},
		{name: "card payment on B directly (sandbox): p50 / p99", value: ms(percentile(direct, 0.5)) + " / " + ms(percentile(direct, 0.99)), target: "report", ok: "-"},
		{name: "card payment on A through the connector to B: p50 / p99", value: ms(percentile(through, 0.5)) + " / " + ms(percentile(through, 0.99)), target: "report", ok: "-"},
		{name: "latency the connector adds (A's p50 less B's)", value: ms(percentile(through, 0.5) - percentile(direct, 0.5)), target: "report", ok: "-"},
	}, nil
}

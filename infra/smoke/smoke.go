// Command smoke proves that a deployed (or local) stack answers end to end:
// health, the merchant's details, a catalog read, a test-mode order polled
// until completed, a checkout session and a card payment with a sandbox card.
// The pipeline runs it after each deploy with a test-mode key; make test runs
// it against the local gateway so it cannot rot.
//
//	go run ./infra/smoke -url https://abc.execute-api.eu-west-1.amazonaws.com -key sk_test_...
//
// Every step is one or a few requests whose status and body are checked; the
// first failure stops the run with the step's name, the request and what came
// back, and exits 1. It writes only test-mode data: a test deposit covering the
// order (so the account needs no funding), the order, a session, a payment.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Config is where the smoke test runs and with what.
type Config struct {
	URL string // base URL, no trailing slash needed
	Key string // a test-mode secret key (sk_test_...)
	// OrderWithin bounds the polling of the order until it completes (its
	// fulfilment runs asynchronously, through the queue).
	OrderWithin time.Duration
	Client      *http.Client
	Log         io.Writer // one line per step passed
}

// StepError is a failed step: its name and why.
type StepError struct {
	Step string
	Err  error
}

func (e *StepError) Error() string { return fmt.Sprintf("step %q failed: %v", e.Step, e.Err) }
func (e *StepError) Unwrap() error { return e.Err }

// step is one check of the run; it may keep what later steps need in r.
type step struct {
	name string
	run  func(r *runner, ctx context.Context) error
}

// Steps are the checks in order (names as reported).
var steps = []step{
	{"health", (*runner).health},
	{"merchant details", (*runner).merchant},
	{"catalog read", (*runner).catalog},
	{"test deposit", (*runner).deposit},
	{"order placed", (*runner).order},
	{"order completed", (*runner).orderCompleted},
	{"checkout session", (*runner).session},
	{"card payment", (*runner).payment},
}

type runner struct {
	cfg     Config
	run     string // unique per run: references and idempotency keys
	product product
	orderID string
}

type product struct {
	ID       int64  `json:"id"`
	Slug     string `json:"slug"`
	Currency string `json:"currency_code"`
	Price    string `json:"price"`
	Active   bool   `json:"is_active"`
	// Products that need the customer's account (a phone number...) are
	// skipped: the smoke test has none to give.
	CustomerAccount []json.RawMessage `json:"customer_account"`
}

// Run runs every step and returns the first failure as a *StepError.
func Run(ctx context.Context, cfg Config) error {
	cfg.URL = strings.TrimRight(cfg.URL, "/")
	if cfg.URL == "" || !strings.HasPrefix(cfg.Key, "sk_test_") {
		return errors.New("smoke: a base URL and a test-mode secret key (sk_test_...) are required")
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: 30 * time.Second}
	}
	if cfg.OrderWithin == 0 {
		cfg.OrderWithin = 60 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return err
	}
	r := &runner{cfg: cfg, run: "smoke-" + hex.EncodeToString(b)}
	for _, s := range steps {
		start := time.Now()
		if err := s.run(r, ctx); err != nil {
			return &StepError{Step: s.name, Err: err}
		}
		fmt.Fprintf(cfg.Log, "ok  %-17s %s\n", s.name, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// call sends one request and decodes a JSON answer of status want into out.
func (r *runner) call(ctx context.Context, method, path string, body any, want int, out any, headers ...string) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.cfg.URL+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", r.cfg.Key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := r.cfg.Client.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s answered %d, want %d: %s (Request-Id %q)", method, path, resp.StatusCode, want,
			excerpt(data), resp.Header.Get("Request-Id"))
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("%s %s: the %d answer is not the expected JSON (%v): %s", method, path, want, err, excerpt(data))
		}
	}
	return nil
}

func excerpt(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	if s == "" {
		return "(empty body)"
	}
	return s
}

func (r *runner) health(ctx context.Context) error {
	var v map[string]any
	return r.call(ctx, "GET", "/health", nil, http.StatusOK, &v)
}

func (r *runner) merchant(ctx context.Context) error {
	var v struct {
		ID string `json:"id"`
	}
	if err := r.call(ctx, "GET", "/v1/merchants/me", nil, http.StatusOK, &v); err != nil {
		return err
	}
	if v.ID == "" {
		return errors.New("GET /v1/merchants/me: no id in the answer")
	}
	return nil
}

// catalog reads the products and keeps one the order step can buy: active,
// fixed price, no customer account needed, not the sandbox's out-of-stock.
func (r *runner) catalog(ctx context.Context) error {
	var v struct {
		Data []product `json:"data"`
	}
	if err := r.call(ctx, "GET", "/products?limit=100", nil, http.StatusOK, &v); err != nil {
		return err
	}
	for _, p := range v.Data {
		if p.Active && p.Price != "" && len(p.CustomerAccount) == 0 && !strings.Contains(p.Slug, "out-of-stock") {
			r.product = p
			return nil
		}
	}
	return fmt.Errorf("GET /products: none of the %d products is active, fixed-price and without a customer account "+
		"(load a catalog: go run ./infra/admin catalog load --account ... --file infra/democatalog/demo.json)", len(v.Data))
}

// deposit funds the order in test mode, so the account needs no balance.
func (r *runner) deposit(ctx context.Context) error {
	body := map[string]any{"currency_code": r.product.Currency, "amount": r.product.Price, "external_ref": r.run}
	return r.call(ctx, "POST", "/test-helpers/deposits", body, http.StatusCreated, nil, "Idempotency-Key", r.run+"-deposit")
}

type order struct {
	ID            string `json:"id"`
	Status        string `json:"status"`
	FailureReason any    `json:"failure_reason"`
}

func (r *runner) order(ctx context.Context) error {
	body := map[string]any{"product_id": r.product.ID, "quantity": 1, "external_ref": r.run}
	var o order
	if err := r.call(ctx, "POST", "/orders", body, http.StatusCreated, &o, "Idempotency-Key", r.run+"-order"); err != nil {
		return err
	}
	if o.ID == "" {
		return errors.New("POST /orders: no id in the answer")
	}
	r.orderID = o.ID
	return nil
}

func (r *runner) orderCompleted(ctx context.Context) error {
	deadline := time.Now().Add(r.cfg.OrderWithin)
	for {
		var o order
		if err := r.call(ctx, "GET", "/orders/"+r.orderID, nil, http.StatusOK, &o); err != nil {
			return err
		}
		switch o.Status {
		case "completed":
			return nil
		case "pending":
		default:
			return fmt.Errorf("order %s is %q (reason %v), want completed", r.orderID, o.Status, o.FailureReason)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("order %s still pending after %s", r.orderID, r.cfg.OrderWithin)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func (r *runner) session(ctx context.Context) error {
	body := map[string]any{
		"amount": map[string]any{"value": 1000, "currency": "EUR"}, "reference": r.run,
		"returnUrl": "https://shop.example/return", "countryCode": "NL", "channel": "Web",
	}
	var v struct {
		ID          string `json:"id"`
		SessionData string `json:"sessionData"`
	}
	if err := r.call(ctx, "POST", "/v2/sessions", body, http.StatusCreated, &v, "Idempotency-Key", r.run+"-session"); err != nil {
		return err
	}
	if v.ID == "" || v.SessionData == "" {
		return errors.New("POST /v2/sessions: no id or sessionData in the answer")
	}
	return nil
}

// payment pays with the sandbox card that authorises at once.
func (r *runner) payment(ctx context.Context) error {
	body := map[string]any{
		"amount": map[string]any{"value": 1000, "currency": "EUR"}, "reference": r.run + "-pay",
		"returnUrl": "https://shop.example/return",
		"paymentMethod": map[string]any{"type": "scheme", "encryptedCardNumber": "test_4111111111111111",
			"encryptedExpiryMonth": "test_03", "encryptedExpiryYear": "test_2030", "encryptedSecurityCode": "test_737"},
	}
	var v struct {
		ResultCode   string `json:"resultCode"`
		PSPReference string `json:"pspReference"`
	}
	if err := r.call(ctx, "POST", "/v2/payments", body, http.StatusOK, &v, "Idempotency-Key", r.run+"-payment"); err != nil {
		return err
	}
	if v.ResultCode != "Authorised" {
		return fmt.Errorf("POST /v2/payments: resultCode %q, want Authorised", v.ResultCode)
	}
	return nil
}

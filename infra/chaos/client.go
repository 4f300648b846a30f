package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"time"
)

// client calls the gateway as the docs tell a merchant to: one
// Idempotency-Key per business operation, retried with the same key and
// body after a network error, a timeout, a 5xx, a 429 or a 409 saying the
// first attempt is still in flight, with backoff, until a definitive answer
// or its patience runs out.
type client struct {
	base     string
	key      string
	http     *http.Client
	patience time.Duration

	mu      sync.Mutex
	retries int
	lat     map[string][]time.Duration // by route, each attempt's latency
}

func newClient(base, key string, patience time.Duration) *client {
	return &client{base: base, key: key, patience: patience, lat: map[string][]time.Duration{},
		http: &http.Client{Timeout: 35 * time.Second}} // past API Gateway's 30 s: the server's own bound shows
}

// answer is the definitive answer of one operation, or the last failure
// when none came (Definitive false: the outcome is unknown).
type answer struct {
	Definitive bool
	Status     int
	Body       map[string]any
	Err        string
	Attempts   int
	// Bodies is every 2xx body received for the operation's key, first
	// to last: every one must be the same resource.
	Bodies []map[string]any
}

// retryable reports whether an answer calls for a retry with the same key.
func retryable(status int, body map[string]any) bool {
	switch {
	case status >= 500, status == http.StatusTooManyRequests:
		return true
	case status == http.StatusConflict:
		code, _ := errField(body, "code").(string)
		// Still in flight, or its claim lapsed and a retry's answer stands:
		// the docs (errors.md) say retry with the same key.
		return code == "idempotency_in_flight" || code == "idempotency_claim_lapsed"
	}
	return false
}

func errField(body map[string]any, k string) any {
	if e, ok := body["error"].(map[string]any); ok {
		return e[k]
	}
	return body[k] // the /v2 face answers Adyen's flat error shape
}

// do runs one operation to its definitive answer. route names it in the
// latency table (e.g. "POST /orders").
func (c *client) do(ctx context.Context, route, method, path string, body any, idem string) answer {
	raw, _ := json.Marshal(body)
	end := time.Now().Add(c.patience)
	backoff := 50 * time.Millisecond
	var a answer
	for {
		a.Attempts++
		if a.Attempts > 1 {
			c.mu.Lock()
			c.retries++
			c.mu.Unlock()
		}
		status, resp, err := c.once(ctx, route, method, path, raw, idem)
		switch {
		case err != nil:
			a.Err = err.Error()
		case status/100 == 2:
			a.Bodies = append(a.Bodies, resp)
			a.Definitive, a.Status, a.Body = true, status, resp
			return a
		case retryable(status, resp):
			a.Err = fmt.Sprintf("%d %v", status, resp)
		default:
			a.Definitive, a.Status, a.Body = true, status, resp
			return a
		}
		if time.Now().After(end) || ctx.Err() != nil {
			return a
		}
		sleep := backoff + time.Duration(rand.Int64N(int64(backoff)))
		select {
		case <-ctx.Done():
			return a
		case <-time.After(sleep):
		}
		backoff = min(backoff*2, 2*time.Second)
	}
}

func (c *client) once(ctx context.Context, route, method, path string, raw []byte, idem string) (int, map[string]any, error) {
	var rd io.Reader
	if method != http.MethodGet {
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", c.key)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	start := time.Now()
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, nil, err
	}
	if route != "" {
		c.mu.Lock()
		c.lat[route] = append(c.lat[route], time.Since(start))
		c.mu.Unlock()
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return res.StatusCode, m, nil
}

// get reads one resource, retrying as do does (reads need no key).
func (c *client) get(ctx context.Context, path string) answer {
	return c.do(ctx, "", http.MethodGet, path, nil, "")
}

func (c *client) retryCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.retries
}

// longest is the longest attempt of any route.
func (c *client) longest() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var m time.Duration
	for _, ds := range c.lat {
		for _, d := range ds {
			m = max(m, d)
		}
	}
	return m
}

// p99 is the 99th percentile of the attempts' latencies of route.
func (c *client) p99(route string) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return percentile(c.lat[route], 0.99)
}

// percentile is the q-th quantile of ds (nearest rank; 0 when empty).
func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(i, 0)]
}

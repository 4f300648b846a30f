package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Webhook delivery through the local gateway (`make run`'s whole pipeline:
// change feed, publisher, embedded queue, sender): latency from the request
// that commits an event to the receiver's answer, and deliveries per second
// to ten endpoints.
const (
	webhookLatencyEvents = 200
	webhookFanoutEvents  = 200
	webhookFanout        = 10
	webhookLatencyP99    = time.Second // the target
)

func webhookLoadRows(ctx context.Context, root string) ([]row, error) {
	g, err := startGateway(ctx, root)
	if err != nil {
		return nil, err
	}
	rows, err := measureWebhooks(ctx, g.target)
	if serr := g.stop(); serr != nil && err == nil {
		err = serr
	}
	return rows, err
}

// receiverSet is n local receivers answering 204 that count what they get.
type receiverSet struct {
	srvs    []*httptest.Server
	arrived chan time.Time
	total   atomic.Int64
}

func newReceivers(n int) *receiverSet {
	rs := &receiverSet{arrived: make(chan time.Time, 100000)}
	for range n {
		rs.srvs = append(rs.srvs, httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			rs.total.Add(1)
			rs.arrived <- time.Now()
			w.WriteHeader(http.StatusNoContent)
		})))
	}
	return rs
}

func (rs *receiverSet) close() {
	for _, s := range rs.srvs {
		s.Close()
	}
}

func measureWebhooks(ctx context.Context, t target) ([]row, error) {
	runID := time.Now().UnixNano()
	one := newReceivers(1)
	defer one.close()
	ep, err := addEndpoint(ctx, t, one.srvs[0].URL)
	if err != nil {
		return nil, err
	}
	pay := checkoutCases(runID, t.key)[1]
	var lat []time.Duration
	for i := range webhookLatencyEvents {
		start := time.Now()
		if err := sendCase(ctx, t, pay, i); err != nil {
			return nil, err
		}
		select {
		case at := <-one.arrived:
			lat = append(lat, at.Sub(start))
		case <-time.After(10 * time.Second):
			return nil, fmt.Errorf("event %d: no delivery within 10 s", i)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if err := deleteEndpoint(ctx, t, ep); err != nil {
		return nil, err
	}
	slices.Sort(lat)
	p50, p99 := lat[len(lat)/2], lat[len(lat)*99/100]

	fan := newReceivers(webhookFanout)
	defer fan.close()
	for _, s := range fan.srvs {
		if _, err := addEndpoint(ctx, t, s.URL); err != nil {
			return nil, err
		}
	}
	want := int64(webhookFanoutEvents * webhookFanout)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, webhookFanoutEvents)
	next := atomic.Int64{}
	for range 10 {
		wg.Go(func() {
			for i := int(next.Add(1)); i <= webhookFanoutEvents; i = int(next.Add(1)) {
				if err := sendCase(ctx, t, pay, webhookLatencyEvents+i); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	deadline := time.Now().Add(2 * time.Minute)
	for fan.total.Load() < want && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	took := time.Since(start)
	got := fan.total.Load()
	if got < want {
		return nil, fmt.Errorf("%d of %d deliveries within 2 minutes", got, want)
	}
	return []row{
		{name: "webhooks: commit to receiver, one endpoint (local)", value: fmt.Sprintf("p50 %s, p99 %s (%d events)", p50.Round(100*time.Microsecond), p99.Round(100*time.Microsecond), len(lat)),
			target: "p99 < " + webhookLatencyP99.String(), ok: verdict(p99 < webhookLatencyP99)},
		{name: fmt.Sprintf("webhooks: deliveries/s to %d endpoints (local)", webhookFanout), value: fmt.Sprintf("%.0f/s (%d deliveries in %s)", float64(got)/took.Seconds(), got, took.Round(time.Millisecond)),
			target: "-", ok: "-"},
	}, nil
}

// sendCase sends request i of c and checks its status.
func sendCase(ctx context.Context, t target, c loadCase, i int) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url+c.path, bytes.NewReader(c.body(i)))
	if err != nil {
		return err
	}
	req.Header = c.headers(i)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != c.want {
		return fmt.Errorf("%s answered %d: %s", c.path, resp.StatusCode, b)
	}
	return nil
}

func addEndpoint(ctx context.Context, t target, url string) (string, error) {
	// One event per payment: the card authorises, and nothing else is
	// subscribed.
	body := fmt.Sprintf(`{"url":%q,"enabled_events":["payment.authorised"]}`, url)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url+"/v1/webhook-endpoints", bytes.NewReader([]byte(body)))
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", t.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var v struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || resp.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("create endpoint answered %d (%v)", resp.StatusCode, err)
	}
	return v.ID, nil
}

func deleteEndpoint(ctx context.Context, t target, id string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, t.url+"/v1/webhook-endpoints/"+id, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", t.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("delete endpoint answered %d", resp.StatusCode)
	}
	return nil
}

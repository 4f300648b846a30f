package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"time"
)

// receiver is a merchant's webhook receiver that fails for a while and
// recovers: it answers 503 to some deliveries, then is down for a moment,
// then answers 200 to all. It counts the deliveries it acknowledged, by
// event id: what "once" means to a merchant.
type receiver struct {
	srv *httptest.Server

	mu          sync.Mutex
	rng         *rand.Rand
	flakyUntil  time.Time
	downFrom    time.Time
	downUntil   time.Time
	acked       map[string]int
	refused     int
	lastRefusal time.Time
}

func newReceiver(seed uint64, flaky, down time.Duration) *receiver {
	now := time.Now()
	rc := &receiver{rng: rand.New(rand.NewPCG(seed, 0x400c)), acked: map[string]int{},
		flakyUntil: now.Add(flaky), downFrom: now.Add(flaky), downUntil: now.Add(flaky + down)}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var ev struct{ ID string }
	_ = json.Unmarshal(body, &ev)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	now := time.Now()
	fail := (now.Before(rc.flakyUntil) && rc.rng.Float64() < 0.3) || (!now.Before(rc.downFrom) && now.Before(rc.downUntil))
	if fail || ev.ID == "" {
		rc.refused++
		rc.lastRefusal = now
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	rc.acked[ev.ID]++
	w.WriteHeader(http.StatusOK)
}

// webhooks is the webhook workload: an endpoint on the receiver, subscribed
// to every event, registered before the money workloads run, and checked
// after them against the account's event log.
type webhooks struct {
	rc       *receiver
	endpoint string
	began    time.Time
}

// startWebhooks registers the endpoint.
func startWebhooks(ctx context.Context, r *run) (*webhooks, error) {
	flaky := time.Duration(r.scale(12, 60)) * time.Second
	rc := newReceiver(r.seed, flaky, 3*time.Second)
	c := r.client()
	a := c.do(ctx, "", http.MethodPost, "/v1/webhook-endpoints", map[string]any{"url": rc.srv.URL, "enabled_events": []string{"*"}},
		fmt.Sprintf("chaos-%d-endpoint", r.seed))
	id, _ := a.Body["id"].(string)
	if !a.Definitive || id == "" {
		rc.srv.Close()
		return nil, fmt.Errorf("the webhook endpoint was not created: %d %v %s", a.Status, a.Body, a.Err)
	}
	return &webhooks{rc: rc, endpoint: id, began: time.Now()}, nil
}

// check: every event of the account since the endpoint was made reached the
// receiver once (acknowledged once, however often it was sent), or is
// waiting for its next attempt in the delivery log; none reached it twice;
// and each event names a resource the workloads made, one event of each
// once-only type per resource.
func (wh *webhooks) check(ctx context.Context, r *run, made map[string]bool) result {
	defer wh.rc.srv.Close()
	res := result{workload: "webhooks to a receiver that fails and recovers"}
	c := r.client()
	events, err := wh.events(ctx, c)
	if err != nil {
		res.fail("read back", err.Error())
		return res
	}
	// The deliveries a refusal put off come back on the retry schedule (the
	// first after a minute): wait for them, within the run's budget.
	wait := time.Duration(r.scale(75, 400)) * time.Second // unbounded: past the local visibility timeout (6 min) of messages a killed gateway held
	checking := time.Now()
	for {
		missing := 0
		wh.rc.mu.Lock()
		for _, e := range events {
			if wh.rc.acked[e.ID] == 0 {
				missing++
			}
		}
		last := wh.rc.lastRefusal
		wh.rc.mu.Unlock()
		// Until the last refusal's retry is due, and the newest event has
		// had time to be published and sent (faults slow both).
		deadline := last.Add(wait)
		if n := newest(events).Add(30 * time.Second); n.After(deadline) {
			deadline = n
		}
		if missing == 0 || time.Now().After(deadline) || time.Since(checking) > wait+30*time.Second || ctx.Err() != nil {
			break
		}
		time.Sleep(time.Second)
	}
	pending, err := wh.pending(ctx, c)
	if err != nil {
		res.fail("read back", err.Error())
		return res
	}
	// Messages the killed gateway held come back after their visibility
	// timeout: as many missing events as the queue holds in flight are
	// late, not lost (make chaos, unbounded, waits them out).
	inFlight, err := r.inFlight(ctx)
	if err != nil {
		res.fail("read back", "the webhooks queue: "+err.Error())
	}
	perObject := map[string]int{}
	wh.rc.mu.Lock()
	defer wh.rc.mu.Unlock()
	for _, e := range events {
		switch n := wh.rc.acked[e.ID]; {
		case n == 1:
			res.acked++
		case n > 1:
			res.duplicated++
			res.fail("once per (event, endpoint)", fmt.Sprintf("%s (%s) acknowledged %d times", e.ID, e.Type, n))
		case pending[e.ID].next:
			res.unknown++ // its next attempt is scheduled: late, not lost
		case pending[e.ID].attempts == 0 && inFlight > 0:
			inFlight--
			res.unknown++ // its message is held in flight: late, not lost
		default:
			res.lost++
			res.fail("every event delivered or waiting", fmt.Sprintf("%s (%s, created %s) was never acknowledged and has no attempt to come (%d attempts recorded, the latest %s)",
				e.ID, e.Type, e.Created.Format(time.TimeOnly), pending[e.ID].attempts, pending[e.ID].latest))
		}
		if onceTypes[e.Type] {
			perObject[e.Type+" "+e.Object]++
			if !made[e.Object] {
				res.fail("no event without its cause", fmt.Sprintf("%s %s names %s, which no workload made", e.ID, e.Type, e.Object))
			}
		}
	}
	for k, n := range perObject {
		if n > 1 {
			res.duplicated++
			res.fail("one event per change", fmt.Sprintf("%s: %d events", k, n))
		}
	}
	res.verdicts = append(res.verdicts, fmt.Sprintf("%d events, %d refusals by the receiver", len(events), wh.rc.refused))
	return res
}

// onceTypes happen once per resource in the workloads (an order completes
// once, a payment is authorised, charged and partly refunded once each, a
// payout is created and paid once).
var onceTypes = map[string]bool{"order.completed": true, "payment.authorised": true, "payment.charged": true,
	"payment.partially_refunded": true, "payout.created": true, "payout.paid": true}

// newest is when the newest of events was created.
func newest(events []event) time.Time {
	var t time.Time
	for _, e := range events {
		if e.Created.After(t) {
			t = e.Created
		}
	}
	return t
}

type event struct {
	ID, Type, Object string
	Created          time.Time
}

// events lists the account's events since the endpoint was made.
func (wh *webhooks) events(ctx context.Context, c *client) ([]event, error) {
	var out []event
	path := "/v1/events?limit=100"
	for {
		a := c.get(ctx, path)
		if !a.Definitive || a.Status != 200 {
			return nil, fmt.Errorf("GET %s: %d %v %s", path, a.Status, a.Body, a.Err)
		}
		for _, e := range items(a.Body) {
			created, _ := e["created"].(float64)
			if time.Unix(int64(created), 0).Before(wh.began.Add(-time.Second)) {
				continue
			}
			ev := event{Created: time.Unix(int64(created), 0)}
			ev.ID, _ = e["id"].(string)
			ev.Type, _ = e["type"].(string)
			if d, ok := e["data"].(map[string]any); ok {
				ev.Object, _ = d["id"].(string)
			}
			out = append(out, ev)
		}
		next, _ := a.Body["next_cursor"].(string)
		if more, _ := a.Body["has_more"].(bool); !more || next == "" {
			return out, nil
		}
		path = "/v1/events?limit=100&cursor=" + url.QueryEscape(next)
	}
}

// deliveryOf is what the delivery log says of one event's delivery.
type deliveryOf struct {
	attempts int
	latest   string // the newest attempt's status
	next     bool   // an attempt is to come
}

// pending reads the endpoint's delivery log, by event.
func (wh *webhooks) pending(ctx context.Context, c *client) (map[string]deliveryOf, error) {
	out := map[string]deliveryOf{}
	base := "/v1/webhook-endpoints/" + wh.endpoint + "/deliveries?limit=100"
	path := base
	for {
		a := c.get(ctx, path)
		if !a.Definitive || a.Status != 200 {
			return nil, fmt.Errorf("GET %s: %d %v %s", path, a.Status, a.Body, a.Err)
		}
		for _, d := range items(a.Body) {
			ev, _ := d["event_id"].(string)
			o := out[ev]
			if o.attempts == 0 { // newest first: the first one seen is the latest
				o.latest, _ = d["status"].(string)
				next, _ := d["next_attempt_at"].(string)
				o.next = next != ""
			}
			o.attempts++
			out[ev] = o
		}
		next, _ := a.Body["next_cursor"].(string)
		if more, _ := a.Body["has_more"].(bool); !more || next == "" {
			return out, nil
		}
		path = base + "&cursor=" + url.QueryEscape(next)
	}
}

// Package load runs the closed-loop HTTP load of `make bench` on vegeta's
// attacker (github.com/tsenart/vegeta/v12, as a library): Concurrency
// workers send requests back to back at an unbounded rate, for a number of
// requests or a duration, and the result gives throughput, exact latency
// percentiles and the statuses seen. What vegeta does not give is kept
// here: a body and headers per request (unique idempotency keys), and a
// check of a sample of the answers, so a run proves its successes are real.
//
// It replaced a hand-written generator after both were measured on the same
// load (the local gateway, 50 clients; and a trivial server, where both cost
// the same CPU per request and vegeta had the lower p50 and p99).
package load

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Config describes a run. Requests or Duration (or both: whichever ends
// first) bounds it.
type Config struct {
	URL         string
	URLFor      func(i int) string      // request i's URL, when requests differ in it (a refund of payment i); nil: URL
	Method      string                  // "" means GET
	Body        func(i int) []byte      // request i's body; nil sends none
	Headers     func(i int) http.Header // request i's headers; nil sends none
	Concurrency int                     // workers; 0 means 1
	Requests    int
	Duration    time.Duration
	// Check, when set, inspects the answer of every CheckEvery-th request
	// (0 or 1: every one), so a run can prove its successes are real (say,
	// a payment Authorised) at a fraction of the cost of parsing them all.
	Check      func(status int, body []byte) error
	CheckEvery int
}

// Result summarises a run. Errors counts requests that got no HTTP answer
// (connection refused, timeout); every answer, 5xx included, is in
// StatusCounts.
type Result struct {
	Requests     int // sent, answered or not
	Errors       int
	Elapsed      time.Duration
	RPS          float64 // answered requests per second
	P50, P99     time.Duration
	Max          time.Duration
	StatusCounts map[int]int
	FirstError   error
	Checked      int // answers given to Config.Check
	CheckFailed  int
	FirstCheck   error // the first error Config.Check returned
}

// Run sends the load and waits for it to finish, or for ctx to end (then
// requests in flight finish, none start).
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.URL == "" && cfg.URLFor == nil {
		return Result{}, errors.New("load: no URL")
	}
	if cfg.Requests <= 0 && cfg.Duration <= 0 {
		return Result{}, errors.New("load: set Requests or Duration")
	}
	if cfg.Method == "" {
		cfg.Method = http.MethodGet
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 1
	}
	if cfg.CheckEvery <= 0 {
		cfg.CheckEvery = 1
	}
	n := uint64(cfg.Concurrency)
	atk := vegeta.NewAttacker(vegeta.Workers(n), vegeta.MaxWorkers(n), vegeta.Connections(cfg.Concurrency),
		vegeta.KeepAlive(true), vegeta.Timeout(30*time.Second), vegeta.HTTP2(false))
	var next atomic.Int64
	targeter := func(t *vegeta.Target) error {
		i := int(next.Add(1) - 1)
		if cfg.Requests > 0 && i >= cfg.Requests {
			return vegeta.ErrNoTargets
		}
		t.Method, t.URL = cfg.Method, cfg.URL
		if cfg.URLFor != nil {
			t.URL = cfg.URLFor(i)
		}
		t.Body = nil
		if cfg.Body != nil {
			t.Body = cfg.Body(i)
		}
		t.Header = http.Header{}
		if cfg.Headers != nil {
			t.Header = cfg.Headers(i)
		}
		return nil
	}
	stop := context.AfterFunc(ctx, func() { atk.Stop() })
	defer stop()
	r := Result{StatusCounts: map[int]int{}}
	var latencies []time.Duration
	var first, last time.Time
	for res := range atk.Attack(targeter, vegeta.Rate{}, cfg.Duration, "bench") {
		if res.Error == vegeta.ErrNoTargets.Error() {
			continue
		}
		if first.IsZero() || res.Timestamp.Before(first) {
			first = res.Timestamp
		}
		if end := res.End(); end.After(last) {
			last = end
		}
		r.Requests++
		if res.Code == 0 {
			r.Errors++
			if r.FirstError == nil {
				r.FirstError = errors.New(res.Error)
			}
			continue
		}
		latencies = append(latencies, res.Latency)
		r.StatusCounts[int(res.Code)]++
		if cfg.Check != nil && int(res.Seq)%cfg.CheckEvery == 0 {
			r.Checked++
			if err := cfg.Check(int(res.Code), res.Body); err != nil {
				r.CheckFailed++
				if r.FirstCheck == nil {
					r.FirstCheck = err
				}
			}
		}
	}
	r.Elapsed = last.Sub(first)
	if len(latencies) == 0 {
		return r, nil
	}
	slices.Sort(latencies)
	r.P50, r.P99, r.Max = Percentile(latencies, 50), Percentile(latencies, 99), latencies[len(latencies)-1]
	r.RPS = float64(len(latencies)) / r.Elapsed.Seconds()
	return r, nil
}

// Percentile is the nearest-rank p-th percentile of sorted durations.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(p/100*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

// Package load is a small closed-loop HTTP load generator: Concurrency
// workers send requests back to back, for a number of requests or a
// duration, and the result gives throughput, latency percentiles and the
// statuses seen. It is what `make bench` uses against the local server.
package load

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Config describes a run. Requests or Duration (or both: whichever ends
// first) bounds it.
type Config struct {
	URL         string
	Method      string                  // "" means GET
	Body        func(i int) []byte      // request i's body; nil sends none
	Headers     func(i int) http.Header // request i's headers; nil sends none
	Concurrency int                     // workers; 0 means 1
	Requests    int
	Duration    time.Duration
	Client      *http.Client // nil means a client with keep-alive sized to Concurrency
	// Check, when set, inspects the answer of every CheckEvery-th request
	// (0 or 1: every one), so a run can prove its successes are real (say,
	// a payment Authorised) without buffering every body.
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

// Run sends the load and waits for it to finish, or for ctx to end.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.URL == "" {
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
	client := cfg.Client
	if client == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = cfg.Concurrency
		client = &http.Client{Transport: tr, Timeout: 30 * time.Second}
		defer tr.CloseIdleConnections()
	}
	if cfg.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Duration)
		defer cancel()
	}

	var next atomic.Int64 // index of the next request to send
	workers := make([]worker, cfg.Concurrency)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range workers {
		wg.Add(1)
		go func(wk *worker) {
			defer wg.Done()
			wk.statuses = map[int]int{}
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if cfg.Requests > 0 && i >= cfg.Requests {
					return
				}
				wk.send(ctx, client, &cfg, i)
			}
		}(&workers[w])
	}
	wg.Wait()
	return summarise(workers, time.Since(start)), nil
}

// worker keeps its own tallies so the hot loop shares nothing.
type worker struct {
	latencies []time.Duration
	statuses  map[int]int
	errors    int
	firstErr  error
	sent      int
	checked   int
	checkFail int
	firstChk  error
}

func (wk *worker) send(ctx context.Context, client *http.Client, cfg *Config, i int) {
	var reqBody io.Reader
	if cfg.Body != nil {
		reqBody = bytes.NewReader(cfg.Body(i))
	}
	req, err := http.NewRequestWithContext(ctx, cfg.Method, cfg.URL, reqBody)
	if err != nil {
		wk.fail(err)
		return
	}
	if cfg.Headers != nil {
		for k, vs := range cfg.Headers(i) {
			req.Header[k] = vs
		}
	}
	wk.sent++
	t0 := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil { // the run ended mid-request: not the server's fault
			wk.sent--
			return
		}
		wk.fail(err)
		return
	}
	var body []byte
	check := cfg.Check != nil && i%cfg.CheckEvery == 0
	if check {
		body, err = io.ReadAll(resp.Body)
	} else {
		_, err = io.Copy(io.Discard, resp.Body)
	}
	resp.Body.Close()
	if err != nil {
		if ctx.Err() != nil {
			wk.sent--
			return
		}
		wk.fail(err)
		return
	}
	wk.latencies = append(wk.latencies, time.Since(t0))
	wk.statuses[resp.StatusCode]++
	if check {
		wk.checked++
		if err := cfg.Check(resp.StatusCode, body); err != nil {
			wk.checkFail++
			if wk.firstChk == nil {
				wk.firstChk = err
			}
		}
	}
}

func (wk *worker) fail(err error) {
	wk.errors++
	if wk.firstErr == nil {
		wk.firstErr = err
	}
}

func summarise(workers []worker, elapsed time.Duration) Result {
	r := Result{Elapsed: elapsed, StatusCounts: map[int]int{}}
	var all []time.Duration
	for _, wk := range workers {
		r.Requests += wk.sent
		r.Errors += wk.errors
		if r.FirstError == nil {
			r.FirstError = wk.firstErr
		}
		r.Checked += wk.checked
		r.CheckFailed += wk.checkFail
		if r.FirstCheck == nil {
			r.FirstCheck = wk.firstChk
		}
		for s, n := range wk.statuses {
			r.StatusCounts[s] += n
		}
		all = append(all, wk.latencies...)
	}
	if len(all) == 0 {
		return r
	}
	slices.Sort(all)
	r.P50, r.P99, r.Max = Percentile(all, 50), Percentile(all, 99), all[len(all)-1]
	r.RPS = float64(len(all)) / elapsed.Seconds()
	return r
}

// Percentile is the nearest-rank p-th percentile of sorted durations.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(p/100*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

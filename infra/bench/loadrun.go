package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/paygate/paygate/infra/bench/load"
	"github.com/paygate/paygate/infra/democatalog"
	"github.com/paygate/paygate/infra/invoke/sample"
	"github.com/paygate/paygate/shared/gate/catalog"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring"
)

// Where the load rows run (-load-target).
const (
	targetGateway   = "gateway"    // the local gateway binary, as `make run` runs it
	targetInProcess = "in-process" // every HTTP group on an httptest server in this process
)

// loadSteps adds the throughput rows (issues 3, 4, 10 and 12): GET /health,
// orders, sessions, authorised card payments, wallet authorisations,
// refunds and recurring payments, all on one server in one run, so the
// ratios to /health compare like with like.
func loadSteps(ctx context.Context, o options, root string, step func(string, func() ([]row, error))) {
	step("load through the "+o.loadTarget, func() ([]row, error) {
		t, stop, err := openProfiledTarget(ctx, o.loadTarget, root, o.profileDir != "")
		if err != nil {
			return nil, err
		}
		var results []caseResult
		o.results = &results
		rows, err := measureLoad(ctx, o, t)
		if serr := stop(); serr != nil && err == nil {
			err = fmt.Errorf("stopping the %s: %w", t.name, serr)
		}
		return append(rows, targetRows(results)...), err
	})
	step("group commit on the embedded store", func() ([]row, error) { return groupCommitRows(ctx, o) })
}

// openProfiledTarget starts the load rows' server; with profile, the gateway also serves
// its pprof profiles on a loopback port of its own (-profile).
func openProfiledTarget(ctx context.Context, kind, root string, profile bool) (target, func() error, error) {
	switch kind {
	case targetGateway:
		var env []string
		pprofAddr := ""
		if profile {
			port, err := freePort()
			if err != nil {
				return target{}, nil, err
			}
			pprofAddr = fmt.Sprintf("127.0.0.1:%d", port)
			env = append(env, "PPROF_ADDR="+pprofAddr)
		}
		g, err := startGateway(ctx, root, env...)
		if err != nil {
			return target{}, nil, err
		}
		if pprofAddr != "" {
			g.target.pprof = "http://" + pprofAddr
		}
		return g.target, g.stop, nil
	case targetInProcess:
		return inProcessTarget(ctx)
	default:
		return target{}, nil, fmt.Errorf("-load-target must be %s or %s, not %q", targetGateway, targetInProcess, kind)
	}
}

// inProcessTarget serves every HTTP group over a fresh embedded store and
// queue (as the gateway opens them, without its queue workers) on a real
// socket, with what the gateway seeds: a test account (the sample one)
// holding the demo catalog. The tests use it; the gateway is the real thing.
func inProcessTarget(ctx context.Context) (target, func() error, error) {
	t, _, stop, err := inProcessServer(ctx)
	return t, stop, err
}

// inProcessServer is inProcessTarget with its dependencies, for rows that
// read the store's own counters.
func inProcessServer(ctx context.Context) (target, *app.Deps, func() error, error) {
	dir, err := os.MkdirTemp("", "paygate-bench-load-")
	if err != nil {
		return target{}, nil, nil, err
	}
	env := map[string]string{"STORE": "embedded", "DATA_DIR": dir}
	cfg, err := app.ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil {
		os.RemoveAll(dir)
		return target{}, nil, nil, err
	}
	d, err := app.Open(ctx, cfg, app.WithQueue(nil))
	if err != nil {
		os.RemoveAll(dir)
		return target{}, nil, nil, err
	}
	d.Log = slog.New(slog.DiscardHandler)
	cleanup := func() error { d.Close(); return os.RemoveAll(dir) }
	if err := seedDemo(ctx, d); err != nil {
		cleanup()
		return target{}, nil, nil, err
	}
	h, err := d.ServeAll(wiring.HTTP()...)
	if err != nil {
		cleanup()
		return target{}, nil, nil, err
	}
	srv := httptest.NewServer(h)
	return target{name: "in-process server", url: srv.URL, key: sample.Key}, d,
		func() error { srv.Close(); return cleanup() }, nil
}

// seedDemo gives the sample account the demo catalog, as the gateway's seed
// does for its sandbox account.
func seedDemo(ctx context.Context, d *app.Deps) error {
	id, err := sample.EnsureAccount(ctx, d.Accounts, d.Keys)
	if err != nil {
		return err
	}
	f, err := catalog.ParseFile(democatalog.Demo)
	if err != nil {
		return err
	}
	return catalog.NewRepo(d.Store).Load(ctx, id, f)
}

// measureLoad runs the /health baseline, funds the orders and sets up the
// payments the refunds and recurring payments need, then runs each write
// case, on t.
func measureLoad(ctx context.Context, o options, t target) ([]row, error) {
	bound := fmt.Sprintf("%d clients, %s or %d requests", o.concurrency, o.loadFor, o.loadRequests)
	var prof *profiler
	if o.profileDir != "" && t.pprof != "" {
		prof = &profiler{dir: o.profileDir, base: t.pprof}
	}
	// profiled runs a load row, profiling the server when -profile asks.
	profiled := func(name string, run func() (load.Result, error)) (load.Result, error) {
		if prof == nil {
			return run()
		}
		return prof.around(ctx, name, o.loadFor, run)
	}
	health, err := profiled("GET /health", func() (load.Result, error) {
		return load.Run(ctx, load.Config{URL: t.url + "/health", Concurrency: o.concurrency,
			Duration: o.loadFor, Requests: o.loadRequests})
	})
	if err != nil {
		return nil, err
	}
	if health.Errors > 0 || health.RPS == 0 || health.StatusCounts[200] != health.Requests {
		return nil, fmt.Errorf("/health baseline on the %s failed: %s, %d transport errors (first: %v)",
			t.name, formatStatuses(health.StatusCounts), health.Errors, health.FirstError)
	}
	rows := []row{{
		name:   fmt.Sprintf("load GET /health [%s], %s", t.name, bound),
		value:  fmt.Sprintf("%.0f req/s (1.00x, the baseline), p50 %s, p99 %s, %s", health.RPS, ms(health.P50), ms(health.P99), formatStatuses(health.StatusCounts)),
		target: "baseline, all 200",
		ok:     "ok",
	}}
	runID := time.Now().UnixNano()
	if err := fundOrders(ctx, t, runID, o.loadRequests); err != nil {
		return rows, err
	}
	cases := loadCases(runID, t.key)
	pay, err := payCases(ctx, t, runID, o)
	if err != nil {
		return rows, err
	}
	for _, c := range append(cases, pay...) {
		if err := probe(ctx, t.url, c); err != nil {
			return rows, err
		}
		res, err := profiled(c.name, func() (load.Result, error) {
			return load.Run(ctx, load.Config{URL: t.url + c.path, URLFor: func(i int) string { return c.url(t.url, i) },
				Method: http.MethodPost, Body: c.body, Headers: c.headers,
				Concurrency: o.concurrency, Duration: o.loadFor, Requests: o.loadRequests, Check: c.checkAnswer(), CheckEvery: checkEvery})
		})
		if err != nil {
			return rows, err
		}
		rows = append(rows, loadRow(c, t, bound, res, health))
		if o.results != nil {
			*o.results = append(*o.results, caseResult{c: c, res: res, health: health, clients: o.concurrency})
		}
	}
	if prof != nil {
		// An authenticated GET under load, for its profile only.
		res, err := profiled("GET /v1/merchants/me", func() (load.Result, error) {
			return load.Run(ctx, load.Config{URL: t.url + "/v1/merchants/me",
				Headers:     func(int) http.Header { return http.Header{"Authorization": {t.key}} },
				Concurrency: o.concurrency, Duration: o.loadFor, Requests: o.loadRequests})
		})
		if err != nil {
			return rows, err
		}
		if res.StatusCounts[http.StatusOK] != res.Requests {
			return rows, fmt.Errorf("GET /v1/merchants/me under load (profiled): %s, %d transport errors", formatStatuses(res.StatusCounts), res.Errors)
		}
		rows = append(rows, prof.rows...)
	}
	return rows, nil
}

// checkEvery is how often a success's body is inspected during a run (the
// rest are discarded unread).
const checkEvery = 20

// loadRow reports a write case: only answers with c.want count as
// successes; any other status is listed.
func loadRow(c loadCase, t target, bound string, res, health load.Result) row {
	ok := res.StatusCounts[c.want]
	rps := float64(ok) / res.Elapsed.Seconds()
	value := fmt.Sprintf("%.0f %s (%.2fx of /health %.0f req/s), p50 %s, p99 %s, %d x %d",
		rps, c.unit, rps/health.RPS, health.RPS, ms(res.P50), ms(res.P99), ok, c.want)
	if ok != res.Requests {
		value += "; all answers: " + formatStatuses(res.StatusCounts)
	}
	if res.Errors > 0 {
		value += fmt.Sprintf("; %d transport errors, first: %v", res.Errors, res.FirstError)
	}
	value += fmt.Sprintf("; %d of them checked", res.Checked)
	if res.CheckFailed > 0 {
		value += fmt.Sprintf(", %d failed, first: %v", res.CheckFailed, res.FirstCheck)
	}
	return row{
		name:   fmt.Sprintf("load %s [%s], %s", c.name, t.name, bound),
		value:  value,
		target: fmt.Sprintf("report beside /health, all %d", c.want),
		ok:     verdict(res.Errors == 0 && ok > 0 && ok == res.Requests && res.Checked > 0 && res.CheckFailed == 0),
	}
}

// caseResult is one load row's outcome, for its target row.
type caseResult struct {
	c           loadCase
	res, health load.Result
	clients     int
}

// targetRows holds each case with a target (issue 33) to it: its rate as a
// ratio to /health's in the same run and, where set, its p99.
func targetRows(results []caseResult) []row {
	var rows []row
	for _, r := range results {
		if r.c.minRatio == 0 {
			continue
		}
		rps := float64(r.res.StatusCounts[r.c.want]) / r.res.Elapsed.Seconds()
		ratio := rps / r.health.RPS
		target := fmt.Sprintf(">= %.2fx of /health", r.c.minRatio)
		met := ratio >= r.c.minRatio
		if r.c.maxP99 > 0 {
			target += ", p99 < " + ms(r.c.maxP99)
			met = met && r.res.P99 < r.c.maxP99
		}
		rows = append(rows, row{
			name:   fmt.Sprintf("target %s at %d clients", r.c.name, r.clients),
			value:  fmt.Sprintf("%.2fx (%.0f %s beside %.0f req/s), p99 %s", ratio, rps, r.c.unit, r.health.RPS, ms(r.res.P99)),
			target: target,
			ok:     verdict(met),
		})
	}
	return rows
}

// probe sends request -1 of c once and checks it really succeeds, so the
// load measures successes, not cheap errors.
func probe(ctx context.Context, base string, c loadCase) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url(base, -1), bytes.NewReader(c.body(-1)))
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

func formatStatuses(c map[int]int) string {
	keys := make([]int, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d x%d", k, c[k]))
	}
	return strings.Join(parts, " ")
}

func formatCounts(c map[string]int) string {
	if len(c) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, c[k]))
	}
	return strings.Join(parts, " ")
}

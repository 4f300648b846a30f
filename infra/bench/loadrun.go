package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/paygate/paygate/infra/bench/load"
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/httpapi"
	"github.com/paygate/paygate/shared/store/boltstore"
	"github.com/paygate/paygate/shared/wiring"
)

// healthLoad is the throughput baseline: GET /health, which touches no data,
// shows what the HTTP stack alone sustains, so later runs (orders, sessions)
// can be read against it.
func healthLoad(ctx context.Context, o options) ([]row, error) {
	base := o.loadURL
	if base == "" {
		srv, closeSrv, err := localServer()
		if err != nil {
			return nil, err
		}
		defer closeSrv()
		base = srv
	}
	res, err := load.Run(ctx, load.Config{URL: strings.TrimSuffix(base, "/") + "/health", Concurrency: o.concurrency, Duration: o.loadFor})
	if err != nil {
		return nil, err
	}
	if res.Errors > 0 {
		return nil, fmt.Errorf("%d transport errors, first: %v", res.Errors, res.FirstError)
	}
	return []row{{
		name:   fmt.Sprintf("load GET /health, %d workers, %s", o.concurrency, o.loadFor),
		value:  fmt.Sprintf("%.0f req/s, p50 %s, p99 %s, %s", res.RPS, res.P50, res.P99, formatStatuses(res.StatusCounts)),
		target: "baseline, all 200",
		ok:     verdict(res.StatusCounts[200] == res.Requests && res.Requests > 0),
	}}, nil
}

// localServer serves every HTTP group over a fresh embedded store, as the
// local gateway does, on a real socket. It returns the base URL and a
// function that stops it.
func localServer() (string, func(), error) {
	dir, err := os.MkdirTemp("", "paygate-bench-load-")
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

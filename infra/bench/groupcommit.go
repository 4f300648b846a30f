package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/paygate/paygate/infra/bench/load"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// groupCommitRows measures the embedded store's group commit (issue 17):
// the bbolt commits, and so fsyncs (two per commit: the pages, then the
// meta page), that each order and each card payment costs at o.concurrency
// clients, on the in-process server over a fresh embedded store.
func groupCommitRows(ctx context.Context, o options) ([]row, error) {
	t, d, stop, err := inProcessServer(ctx)
	if err != nil {
		return nil, err
	}
	defer stop()
	bs, ok := d.Store.(*boltstore.Store)
	if !ok {
		return nil, fmt.Errorf("the in-process server's store is %T, not the embedded one", d.Store)
	}
	runID := time.Now().UnixNano()
	if err := fundOrders(ctx, t, runID, o.loadRequests); err != nil {
		return nil, err
	}
	var rows []row
	for _, c := range loadCases(runID, t.key) {
		if c.path != "/orders" && c.path != "/v2/payments" {
			continue
		}
		if err := probe(ctx, t.url, c); err != nil {
			return rows, err
		}
		before := bs.GroupStats()
		res, err := load.Run(ctx, load.Config{URL: t.url + c.path, Method: http.MethodPost, Body: c.body, Headers: c.headers,
			Concurrency: o.concurrency, Duration: o.loadFor, Requests: o.loadRequests})
		if err != nil {
			return rows, err
		}
		after := bs.GroupStats()
		ok := res.StatusCounts[c.want]
		commits, writes := after.Commits-before.Commits, after.Writes-before.Writes
		if ok == 0 || commits == 0 {
			return rows, fmt.Errorf("%s: %d successes, %d commits", c.name, ok, commits)
		}
		rows = append(rows, row{
			name: fmt.Sprintf("embedded store group commit: %s, %d clients (in-process)", c.name, o.concurrency),
			value: fmt.Sprintf("%.2f fsyncs per request (%d commits for %d store writes, %d requests: %.1f writes per commit)",
				2*float64(commits)/float64(ok), commits, writes, ok, float64(writes)/float64(commits)),
			target: "report (2 per write without group commit)", ok: "-",
		})
	}
	return rows, nil
}

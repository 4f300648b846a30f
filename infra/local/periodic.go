package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring"
)

// periodic is one scheduled function built for the local gateway, standing in
// for its EventBridge schedule.
type periodic struct {
	name  string
	every time.Duration
	run   func(context.Context) error
	log   *slog.Logger
}

// buildPeriodic builds every scheduled function, as the template's Schedule
// events would invoke them.
func buildPeriodic(d *app.Deps, tasks []wiring.Task) ([]*periodic, error) {
	var out []*periodic
	for _, t := range tasks {
		if t.Every <= 0 {
			return nil, fmt.Errorf("%s: interval must be positive", t.Function)
		}
		run, err := t.Build(d)
		if err != nil {
			return nil, fmt.Errorf("build %s: %w", t.Function, err)
		}
		out = append(out, &periodic{name: t.Function, every: t.Every, run: cutTask(d, t.Function, run), log: d.Log.With("function", t.Function)})
	}
	return out, nil
}

// startPeriodic runs each task every interval (the first run one interval
// after start, like a rate() schedule) until ctx is done; wg tracks them so
// shutdown waits for a run in flight.
func startPeriodic(ctx context.Context, wg *sync.WaitGroup, ps []*periodic) {
	for _, p := range ps {
		wg.Go(func() { p.loop(ctx) })
	}
}

func (p *periodic) loop(ctx context.Context) { app.Every(ctx, p.every, p.run, p.log) }

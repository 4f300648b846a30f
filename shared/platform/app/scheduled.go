package app

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
)

// ScheduledBuilder builds a scheduled function's task from the dependencies:
// one run per call, an error when the run failed (so the invocation fails and
// shows in the function's error metrics).
type ScheduledBuilder func(*Deps) (func(ctx context.Context) error, error)

// ScheduledHandler adapts a task to the EventBridge schedule's invocation:
// the event (a "Scheduled Event") carries nothing the task needs, so any JSON
// is accepted and ignored.
func ScheduledHandler(task func(ctx context.Context) error) func(ctx context.Context, ev json.RawMessage) error {
	return func(ctx context.Context, _ json.RawMessage) error { return task(ctx) }
}

// StartScheduled is the whole main of a scheduled function.
func StartScheduled(build ScheduledBuilder, cloud CloudOpener, opts ...Option) {
	d := mustOpen(cloud, opts...)
	task, err := build(d)
	if err != nil {
		fail(err)
	}
	lambda.Start(ScheduledHandler(task))
}

// Every runs task every interval (the first run one interval after start,
// like a rate() schedule) until ctx is done: the local stand-in for a
// scheduled function's EventBridge schedule (the local gateway's, and the
// crash tests' servers'). A failed run is logged, as the Lambda's error
// would be, and the next tick runs again.
func Every(ctx context.Context, interval time.Duration, task func(context.Context) error, log *slog.Logger) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := task(ctx); err != nil && ctx.Err() == nil && log != nil {
				log.Error("scheduled run failed", "error", err.Error())
			}
		}
	}
}

package app

import (
	"context"
	"encoding/json"

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
func StartScheduled(build ScheduledBuilder, opts ...Option) {
	d := mustOpen(opts...)
	task, err := build(d)
	if err != nil {
		fail(err)
	}
	lambda.Start(ScheduledHandler(task))
}

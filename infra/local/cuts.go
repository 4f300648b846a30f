package main

import (
	"context"

	"github.com/aws/aws-lambda-go/events"

	"github.com/paygate/paygate/infra/chaos/faults"
	"github.com/paygate/paygate/shared/platform/app"
)

// The invocations of consumers and scheduled tasks under FAULTS' deadline
// kind (faults.Transport.Cut): each may be cut at a random moment, as
// Lambda's timeout cuts one, and then fails whole. Without FAULTS they run
// as built.

func cutter(d *app.Deps) *faults.Transport {
	t, _ := d.Config.Transport.(*faults.Transport)
	return t
}

func cutSQS(d *app.Deps, function string, h app.SQSHandler) app.SQSHandler {
	t := cutter(d)
	if t == nil {
		return h
	}
	return func(ctx context.Context, ev events.SQSEvent) (resp events.SQSEventResponse, err error) {
		err = t.Cut(ctx, function, func(ctx context.Context) error {
			resp, err = h(ctx, ev)
			return err
		})
		return resp, err
	}
}

func cutStream(d *app.Deps, function string, h app.StreamHandler) app.StreamHandler {
	t := cutter(d)
	if t == nil {
		return h
	}
	return func(ctx context.Context, ev events.DynamoDBEvent) (resp events.DynamoDBEventResponse, err error) {
		err = t.Cut(ctx, function, func(ctx context.Context) error {
			resp, err = h(ctx, ev)
			return err
		})
		return resp, err
	}
}

func cutTask(d *app.Deps, function string, run func(context.Context) error) func(context.Context) error {
	t := cutter(d)
	if t == nil {
		return run
	}
	return func(ctx context.Context) error { return t.Cut(ctx, function, run) }
}

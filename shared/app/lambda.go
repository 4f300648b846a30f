package app

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/paygate/paygate/shared/httpapi"
)

// HTTPBuilder builds one function group's routes from the dependencies.
type HTTPBuilder func(*Deps) (httpapi.Group, error)

// SQSHandler consumes a batch; failed messages are reported individually so
// only they are redelivered (ReportBatchItemFailures).
type SQSHandler func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error)

// SQSBuilder builds a queue consumer from the dependencies.
type SQSBuilder func(*Deps) (SQSHandler, error)

// StartHTTP is the whole main of an HTTP function: config, clients once,
// service, lambda.Start through the API Gateway v2 adapter.
func StartHTTP(build HTTPBuilder, opts ...Option) {
	d := mustOpen(opts...)
	g, err := build(d)
	if err != nil {
		fail(err)
	}
	lambda.Start(httpadapter.NewV2(d.Server(g)).ProxyWithContext)
}

// StartSQS is the whole main of a queue consumer.
func StartSQS(build SQSBuilder, opts ...Option) {
	d := mustOpen(opts...)
	h, err := build(d)
	if err != nil {
		fail(err)
	}
	lambda.Start(h)
}

func mustOpen(opts ...Option) *Deps {
	cfg, err := ConfigFromEnv(os.Getenv)
	if err != nil {
		fail(err)
	}
	d, err := Open(context.Background(), cfg, opts...)
	if err != nil {
		fail(err)
	}
	return d
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "startup:", err)
	os.Exit(1)
}

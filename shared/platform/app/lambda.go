package app

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
)

// HTTPBuilder builds one function group's routes from the dependencies.
type HTTPBuilder func(*Deps) (httpapi.Group, error)

// SQSHandler is a queue consumer as Lambda invokes it: a batch in, the
// failed messages reported individually so only they are redelivered
// (ReportBatchItemFailures). SQSLambda makes one of a queue.Handler.
type SQSHandler func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error)

// SQSBuilder builds a queue consumer from the dependencies.
type SQSBuilder func(*Deps) (queue.Handler, error)

// SQSLambda adapts a consumer to Lambda's SQS event: each record becomes a
// queue.Message (its receive count from ApproximateReceiveCount), and the
// ids the consumer hands back are the batch item failures.
func SQSLambda(h queue.Handler) SQSHandler {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		batch := make([]queue.Message, len(ev.Records))
		for i, r := range ev.Records {
			n, _ := strconv.Atoi(r.Attributes["ApproximateReceiveCount"])
			batch[i] = queue.Message{ID: r.MessageId, Body: []byte(r.Body), Receipt: r.ReceiptHandle, ReceiveCount: n}
		}
		var resp events.SQSEventResponse
		for _, id := range h(ctx, batch) {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: id})
		}
		return resp, nil
	}
}

// StartHTTP is the whole main of an HTTP function: config, clients once
// (in the cloud through cloud), service, lambda.Start through the API
// Gateway v2 adapter.
func StartHTTP(build HTTPBuilder, cloud CloudOpener, opts ...Option) {
	d := mustOpen(cloud, opts...)
	g, err := build(d)
	if err != nil {
		fail(err)
	}
	lambda.Start(httpadapter.NewV2(d.Server(g)).ProxyWithContext)
}

// StartSQS is the whole main of a queue consumer.
func StartSQS(build SQSBuilder, cloud CloudOpener, opts ...Option) {
	d := mustOpen(cloud, opts...)
	h, err := build(d)
	if err != nil {
		fail(err)
	}
	lambda.Start(SQSLambda(h))
}

// mustOpen opens a Lambda function's dependencies; cloud is required so
// that no main can forget how it reaches its stack.
func mustOpen(cloud CloudOpener, opts ...Option) *Deps {
	TuneGC(os.Getenv)
	cfg, err := ConfigFromEnv(os.Getenv)
	if err != nil {
		fail(err)
	}
	d, err := Open(context.Background(), cfg, append(opts, OnCloud(cloud))...)
	if err != nil {
		fail(err)
	}
	return d
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "startup:", err)
	os.Exit(1)
}

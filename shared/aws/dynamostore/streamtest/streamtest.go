// Package streamtest stands in for Lambda's DynamoDB event source mapping in
// tests, over DynamoDB Local: package streamreader reads the stream, this
// package gives it the test's client and runs it for the test's length.
package streamtest

import (
	"context"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/aws/dynamostore/streamreader"
	"github.com/paygate/paygate/shared/platform/app"
)

// Config is how the stream is read (streamreader.Config).
type Config = streamreader.Config

// Less compares two sequence numbers (streamreader.Less).
func Less(a, b string) bool { return streamreader.Less(a, b) }

// Client is a DynamoDB Streams client of DynamoDB Local (DYNAMODB_ENDPOINT,
// see dynamotest.Endpoint).
func Client(t testing.TB) *dynamodbstreams.Client {
	t.Helper()
	cfg, endpoint := dynamotest.Config(t)
	return dynamodbstreams.NewFromConfig(cfg, func(o *dynamodbstreams.Options) { o.BaseEndpoint = aws.String(endpoint) })
}

// Start runs streamreader.Run on DynamoDB Local in the background for the
// physical table and stops it when the test ends, or earlier by the function
// it returns (which waits for the batch in flight). An error of Run fails
// the test.
func Start(t testing.TB, dynamo *dynamodb.Client, table string, h app.StreamHandler, opts ...func(*Config)) (stop func()) {
	t.Helper()
	cfg := Config{Streams: Client(t), Dynamo: dynamo, Logf: t.Logf}
	for _, o := range opts {
		o(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := streamreader.Run(ctx, cfg, table, h); err != nil {
			t.Errorf("streamtest: %v", err)
		}
	}()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return stop
}

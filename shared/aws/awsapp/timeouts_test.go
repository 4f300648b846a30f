package awsapp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/platform/app"
)

// stalled is an endpoint that takes every request and never answers, as a
// dropped answer looks to the caller.
func stalled(t *testing.T) (string, *atomic.Int32) {
	var n atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv.URL, &n
}

// config is a client config with the service's own retryer (as Open
// builds it) and the given bounds. The SDK's default retryer pauses up to
// 2 s before a second attempt, which could outlast a test's call bound.
func config(t *testing.T, to awsapp.Timeouts) aws.Config {
	prod, err := awsapp.Config(app.Config{Region: "us-east-1", DynamoEndpoint: "http://127.0.0.1:1", Getenv: func(string) string { return "" }})
	require.NoError(t, err)
	ac := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""), Retryer: prod.Retryer}
	to.Register(&ac)
	return ac
}

// A call whose answer never comes is retried per attempt and given up at
// the call's bound, not held until the function's own timeout.
func TestCallsToAStalledEndpointEndInTime(t *testing.T) {
	url, n := stalled(t)
	ddb := dynamodb.NewFromConfig(config(t, awsapp.Timeouts{Attempt: 150 * time.Millisecond, Call: 2 * time.Second}),
		func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(url) })
	start := time.Now()
	_, err := ddb.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	took := time.Since(start)
	require.Error(t, err)
	t.Logf("error: %v", err)
	assert.Less(t, took, 3*time.Second, "bounded by the call's timeout")
	assert.GreaterOrEqual(t, n.Load(), int32(2), "a timed-out attempt is retried")

	// The call's bound holds whatever the retries.
	n.Store(0)
	ddb = dynamodb.NewFromConfig(config(t, awsapp.Timeouts{Attempt: time.Minute, Call: 300 * time.Millisecond}),
		func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(url) })
	start = time.Now()
	_, err = ddb.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	require.Error(t, err)
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.Equal(t, int32(1), n.Load())
}

// A long poll waits its WaitTimeSeconds on top of the bounds: it is not cut
// short by them.
func TestLongPollWaitsOnTopOfTheBounds(t *testing.T) {
	assert.Equal(t, 20*time.Second, awsapp.WaitOf(&sqs.ReceiveMessageInput{WaitTimeSeconds: 20}))
	assert.Zero(t, awsapp.WaitOf(&sqs.SendMessageInput{}))
	assert.Zero(t, awsapp.WaitOf(nil))
	assert.Zero(t, awsapp.WaitOf((*sqs.ReceiveMessageInput)(nil)))

	url, n := stalled(t)
	q := sqs.NewFromConfig(config(t, awsapp.Timeouts{Attempt: 100 * time.Millisecond, Call: 200 * time.Millisecond}),
		func(o *sqs.Options) { o.BaseEndpoint = aws.String(url) })
	start := time.Now()
	_, err := q.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(url + "/q"), WaitTimeSeconds: 1})
	require.Error(t, err)
	took := time.Since(start)
	assert.GreaterOrEqual(t, took, time.Second, "the wait is not cut short")
	assert.Less(t, took, 3*time.Second)
	assert.GreaterOrEqual(t, n.Load(), int32(1))
}

// Package sqstest gives tests an SQS-backed queue.Queue on the server at
// $SQS_ENDPOINT (moto: infra/scripts/moto.sh start). Without it tests skip,
// unless REQUIRE_REAL_SERVERS=1 makes that a failure.
package sqstest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/paygate/paygate/shared/aws/sqsqueue"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/testkit/apitest/realservers"
)

// Client returns an SQS client for $SQS_ENDPOINT (region us-east-1, dummy
// static credentials), or skips/fails the test when it is unset.
func Client(t testing.TB) *sqs.Client {
	t.Helper()
	endpoint := realservers.Endpoint(t, "SQS_ENDPOINT", "infra/scripts/moto.sh start")
	return sqs.New(sqs.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
	})
}

// NewForTest creates fresh, uniquely prefixed queues (each with its DLQ and
// redrive policy) for the logical names and returns a queue.Queue that
// speaks those logical names. The queues are deleted when the test ends.
func NewForTest(t testing.TB, names ...string) queue.Queue {
	t.Helper()
	client := Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	urls, err := sqsqueue.CreateQueues(ctx, client, names, uniquePrefix(t))
	if err != nil {
		t.Fatalf("sqstest: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, u := range urls {
			if _, err := client.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(u)}); err != nil {
				t.Errorf("sqstest: delete queue %s: %v", u, err)
			}
		}
	})
	return sqsqueue.New(client, urls)
}

// uniquePrefix keeps parallel tests and earlier runs on the same server
// apart; SQS queue names allow [A-Za-z0-9_-], 80 characters at most.
func uniquePrefix(t testing.TB) string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("sqstest: %v", err)
	}
	return "t" + hex.EncodeToString(b) + "-"
}

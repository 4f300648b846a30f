package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/paygate/paygate/infra/invoke/sample"
	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/sqsqueue"
	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/gate/orders"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/queue"
)

// webhookCalls is what one event costs per subscribed endpoint, by stage.
type webhookCalls struct {
	PublishDB, PublishSQS map[string]int // the publisher, for one record
	PollSQS               map[string]int // the event source mapping: receive and delete
	SendDB, SendSQS       map[string]int // the sender, for one successful attempt
	// For the cost table: capacity units and this process's CPU time of the
	// publisher (one record) and the sender (one attempt), the bytes the
	// receiver got, and the items the publisher's query read.
	PublishUnits, SendUnits dynamostore.Units
	PublishCPU, SendCPU     time.Duration
	DeliveredBytes          int
}

// webhookCallRows counts, on DynamoDB Local and moto's SQS, the calls of one
// event delivered to one endpoint that answers 2xx at once.
func webhookCallRows(ctx context.Context) ([]row, error) {
	ddb, sqsEndpoint := os.Getenv("DYNAMODB_ENDPOINT"), os.Getenv("SQS_ENDPOINT")
	if ddb == "" || sqsEndpoint == "" {
		return []row{{name: "webhook calls per event per endpoint", value: "skipped: DYNAMODB_ENDPOINT or SQS_ENDPOINT unset", target: "-", ok: "-"}}, nil
	}
	c, err := measureWebhookCalls(ctx, ddb, sqsEndpoint)
	if err != nil {
		return nil, err
	}
	return []row{
		{name: "webhooks: publisher DynamoDB+SQS calls per event", value: formatCounts(c.PublishDB) + "; " + formatCounts(c.PublishSQS),
			target: "Query=1; SendMessage=1 per endpoint", ok: verdict(total(c.PublishDB) == 1 && c.PublishSQS["SendMessage"] == 1 && total(c.PublishSQS) == 1)},
		{name: "webhooks: SQS calls of the event source per delivery", value: formatCounts(c.PollSQS), target: "-", ok: "-"},
		{name: "webhooks: sender DynamoDB+SQS calls per delivered attempt", value: formatCounts(c.SendDB) + "; " + formatCounts(c.SendSQS),
			target: "reads + 1 transaction (+ account read without api_version); no SQS", ok: verdict(c.SendDB["TransactWriteItems"] == 1 && total(c.SendSQS) == 0)},
	}, nil
}

func measureWebhookCalls(ctx context.Context, ddbEndpoint, sqsEndpoint string) (webhookCalls, error) {
	var out webhookCalls
	dbCount := dynamostore.NewCallCounter()
	d, _, cleanup, err := dynamoDeps(ctx, ddbEndpoint, dbCount.Option())
	if err != nil {
		return out, err
	}
	defer cleanup()
	qCount := dynamostore.NewCallCounter()
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")}
	qCount.Register(&cfg)
	client := sqs.NewFromConfig(cfg, func(o *sqs.Options) { o.BaseEndpoint = aws.String(sqsEndpoint) })
	prefix := fmt.Sprintf("bench-%d-", time.Now().UnixNano())
	urls, err := sqsqueue.CreateQueues(ctx, client, []string{queue.Webhooks}, prefix)
	if err != nil {
		return out, err
	}
	defer func() {
		for _, u := range urls {
			_, _ = client.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: aws.String(u)})
		}
	}()
	q := sqsqueue.New(client, urls)

	var delivered atomic.Int64
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		delivered.Add(n)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer rc.Close()
	acct, err := d.Keys.Authenticate(ctx, sample.Key)
	if err != nil {
		return out, err
	}
	svc := webhooks.New(d.Store, d.Clock)
	if _, err := svc.Create(ctx, webhooks.Caller{AccountID: acct.AccountID}, webhooks.CreateInput{
		URL: rc.URL, EnabledEvents: []string{"*"}, APIVersion: "2024-01-15"}); err != nil {
		return out, err
	}
	op, err := eventlog.Append(eventlog.Event{Type: orders.EventCompleted, Account: acct.AccountID, At: time.Now(),
		Data: orders.Order{ID: ids.New(), Status: orders.StatusCompleted}})
	if err != nil {
		return out, err
	}
	it := op.Item
	if err := d.Store.Write(ctx, op); err != nil {
		return out, err
	}

	dbCount.Reset()
	qCount.Reset()
	cpu0 := processCPU()
	if n, err := webhooks.NewPublisher(svc, q, nil).Publish(ctx, it); err != nil || n != 1 {
		return out, fmt.Errorf("publish: %d messages, %v", n, err)
	}
	out.PublishCPU = processCPU() - cpu0
	out.PublishDB, out.PublishSQS, out.PublishUnits = dbCount.Counts(), qCount.Counts(), dbCount.Units()

	qCount.Reset()
	msgs, err := q.Receive(ctx, queue.Webhooks, 10, time.Minute, 5*time.Second)
	if err != nil || len(msgs) != 1 {
		return out, fmt.Errorf("receive: %d messages, %v", len(msgs), err)
	}
	poll := qCount.Counts()

	dbCount.Reset()
	qCount.Reset()
	cpu0 = processCPU()
	resp, err := app.SQSLambda(webhooks.NewSender(svc, q, webhooks.SenderConfig{}).Consume)(ctx, events.SQSEvent{
		Records: []events.SQSMessage{{MessageId: msgs[0].ID, Body: string(msgs[0].Body)}}})
	if err != nil || len(resp.BatchItemFailures) > 0 {
		return out, fmt.Errorf("send: %+v, %v", resp, err)
	}
	out.SendCPU = processCPU() - cpu0
	out.SendDB, out.SendSQS, out.SendUnits = dbCount.Counts(), qCount.Counts(), dbCount.Units()
	out.DeliveredBytes = int(delivered.Load())

	qCount.Reset()
	if err := q.Delete(ctx, queue.Webhooks, msgs[0].Receipt); err != nil {
		return out, err
	}
	for k, v := range qCount.Counts() {
		poll[k] += v
	}
	out.PollSQS = poll
	return out, nil
}

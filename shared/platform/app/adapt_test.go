package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
)

// TestSQSLambdaGivesTheConsumerMessages: a Lambda SQS event becomes queue
// messages, and the ids handed back become the batch item failures.
func TestSQSLambdaGivesTheConsumerMessages(t *testing.T) {
	var got []queue.Message
	h := app.SQSLambda(func(_ context.Context, batch []queue.Message) []string {
		got = batch
		return []string{"m2"}
	})
	resp, err := h(context.Background(), events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "m1", Body: `{"a":1}`, ReceiptHandle: "r1", Attributes: map[string]string{"ApproximateReceiveCount": "3"}},
		{MessageId: "m2", Body: "x", ReceiptHandle: "r2"},
	}})
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, queue.Message{ID: "m1", Body: []byte(`{"a":1}`), Receipt: "r1", ReceiveCount: 3}, got[0])
	assert.Equal(t, []events.SQSBatchItemFailure{{ItemIdentifier: "m2"}}, resp.BatchItemFailures)
}

// TestStreamLambdaGivesTheConsumerChanges: stream records become changes of
// the logical table (mapped back from the physical name in the ARN), an
// undecodable image is passed over, and the first unfinished change is the
// batch item failure.
func TestStreamLambdaGivesTheConsumerChanges(t *testing.T) {
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	it := store.Item{Key: store.Key{Table: store.TableEvents, PK: "evt#a", SK: "evt_1"}, Data: []byte(`{"x":1}`), Version: 1}
	ev := app.StreamEvent("eu-west-1", store.TableEvents, []store.Change{
		{Seq: 7, Kind: store.ChangeInsert, Item: it, At: at},
		{Seq: 8, Kind: store.ChangeRemove, Item: store.Item{Key: it.Key}, At: at},
		{Seq: 9, Kind: store.ChangeModify, Item: it, At: at},
	})
	for i := range ev.Records {
		ev.Records[i].EventSourceArn = "arn:aws:dynamodb:eu-west-1:123456789012:table/prod-events/stream/2026-11-28T00:00:00.000"
	}
	bad := ev.Records[0]
	bad.Change.NewImage = map[string]events.DynamoDBAttributeValue{"pk": events.NewNumberAttribute("1")}
	ev.Records = append([]events.DynamoDBEventRecord{bad}, ev.Records...)

	var got []store.Change
	h := app.StreamLambda(func(_ context.Context, changes []store.Change) int {
		got = changes
		return 2
	}, map[string]string{store.TableEvents: "prod-events"}, nil)
	resp, err := h(context.Background(), ev)
	require.NoError(t, err)
	require.Len(t, got, 3, "the undecodable record is passed over")
	assert.Equal(t, store.ChangeInsert, got[0].Kind)
	assert.Equal(t, store.TableEvents, got[0].Item.Table)
	assert.Equal(t, "evt_1", got[0].Item.SK)
	assert.JSONEq(t, `{"x":1}`, string(got[0].Item.Data))
	assert.Equal(t, uint64(7), got[0].Seq)
	assert.Equal(t, store.ChangeRemove, got[1].Kind)
	assert.Equal(t, it.Key, got[1].Item.Key, "a removal carries its key")
	assert.Equal(t, []events.DynamoDBBatchItemFailure{{ItemIdentifier: app.SequenceNumber(9)}}, resp.BatchItemFailures)
}

// TestHSTSThroughAPIGateway: a request as API Gateway delivers it takes its
// Host from the event's domainName, so its answer carries
// Strict-Transport-Security even when the client sent Host: localhost.
func TestHSTSThroughAPIGateway(t *testing.T) {
	s := httpapi.NewServer(httpapi.Config{}, httpapi.Group{Name: "Probe", Routes: []httpapi.Route{
		{Method: "GET", Path: "/ok", Handler: func(*httpapi.Request) (*httpapi.Response, error) { return httpapi.OK("", map[string]int{"a": 1}), nil }},
	}})
	proxy := httpadapter.NewV2(s).ProxyWithContext
	for _, path := range []string{"/ok", "/nowhere"} {
		ev := events.APIGatewayV2HTTPRequest{
			RawPath: path, Headers: map[string]string{"host": "localhost"},
			RequestContext: events.APIGatewayV2HTTPRequestContext{DomainName: "api.example.com",
				HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "GET", Path: path, SourceIP: "127.0.0.1"}},
		}
		resp, err := proxy(context.Background(), ev)
		require.NoError(t, err)
		assert.Equal(t, httpapi.HSTS, resp.Headers[httpapi.HSTSHeader], path)
	}
}

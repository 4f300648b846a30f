package wallet

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/sandbox/walletprovider"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// countingQueue counts the calls the service makes on the queue port.
type countingQueue struct {
	queue.Queue
	mu     sync.Mutex
	counts map[string]int
}

func (q *countingQueue) add(op string) {
	q.mu.Lock()
	q.counts[op]++
	q.mu.Unlock()
}

func (q *countingQueue) Send(ctx context.Context, name string, body []byte, delay time.Duration) (string, error) {
	q.add("SendMessage")
	return q.Queue.Send(ctx, name, body, delay)
}

func (q *countingQueue) ChangeVisibility(ctx context.Context, name, receipt string, d time.Duration) error {
	q.add("ChangeMessageVisibility")
	return q.Queue.ChangeVisibility(ctx, name, receipt, d)
}

func (q *countingQueue) reset() map[string]int {
	q.mu.Lock()
	defer q.mu.Unlock()
	c := q.counts
	q.counts = map[string]int{}
	return c
}

// TestCallsPerAuthorizeAndConfirmation counts DynamoDB calls on DynamoDB
// Local and the service's queue calls. An authorisation: GetItem of the API
// key, GetItem of the idempotency key, one TransactWriteItems (idempotency
// record + transaction + open-index entry + event), one SendMessage. A
// replay: the two reads only. A confirmation handled by the consumer (the
// approving sandbox phone): one GetItem and two TransactWriteItems (NEW ->
// PROCESSING, PROCESSING -> SUCCESS, each with its event; the second also
// deletes the index entry), no queue call of its own (the event source
// deletes the message). A duplicate delivery: one GetItem, no write.
func TestCallsPerAuthorizeAndConfirmation(t *testing.T) {
	counter := dynamostore.NewCallCounter()
	client := dynamotest.Client(t, counter.Option())
	st := dynamostore.New(client, dynamotest.Tables(t, client), nil)
	q := &countingQueue{counts: map[string]int{}}
	var svc *Service
	build := func(d *app.Deps) (httpapi.Group, error) {
		q.Queue = d.Queue
		svc = New(Config{Store: d.Store, Queue: q, Clock: d.Clock, Log: d.Log, Provider: walletprovider.New(0)})
		return svc.Group(), nil
	}
	e := &env{Env: apitest.NewWith(t, apitest.Options{Store: st}, build)}
	e.svc = svc
	e.authorize(walletprovider.PhoneApprove, 100) // warm

	counter.Reset()
	q.reset()
	r := e.Do("POST", "/v1/wallet/authorize", body(walletprovider.PhoneApprove, 1000), "Idempotency-Key", "counted")
	require.Equal(t, 200, r.Status, string(r.Body))
	id := r.Map(t)["walletTransactionId"].(string)
	require.Equal(t, map[string]int{"GetItem": 2, "TransactWriteItems": 1}, counter.Counts(), "authorize")
	require.Equal(t, map[string]int{"SendMessage": 1}, q.reset(), "authorize")

	counter.Reset()
	r = e.Do("POST", "/v1/wallet/authorize", body(walletprovider.PhoneApprove, 1000), "Idempotency-Key", "counted")
	require.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))
	require.Equal(t, map[string]int{"GetItem": 2}, counter.Counts(), "replayed authorize")
	require.Empty(t, q.reset())

	msg := events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m", Body: `{"account_id":"` + e.Account.ID + `","wallet_transaction_id":"` + id + `"}`}}}
	counter.Reset()
	resp, err := app.SQSLambda(svc.Consume)(context.Background(), msg)
	require.NoError(t, err)
	require.Empty(t, resp.BatchItemFailures)
	require.Equal(t, map[string]int{"GetItem": 1, "TransactWriteItems": 2}, counter.Counts(), "confirmation")
	require.Empty(t, q.reset())
	require.Equal(t, "SUCCESS", e.status(id))

	counter.Reset()
	_, err = app.SQSLambda(svc.Consume)(context.Background(), msg)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"GetItem": 1}, counter.Counts(), "duplicate confirmation")
}

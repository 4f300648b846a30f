package beneficiaries

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/sandbox/bank"

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

func (q *countingQueue) Send(ctx context.Context, name string, body []byte, delay time.Duration) (string, error) {
	q.mu.Lock()
	q.counts["SendMessage"]++
	q.mu.Unlock()
	return q.Queue.Send(ctx, name, body, delay)
}

func (q *countingQueue) reset() map[string]int {
	q.mu.Lock()
	defer q.mu.Unlock()
	c := q.counts
	q.counts = map[string]int{}
	return c
}

// TestCallsPerDistributionAndPaymentOrder counts DynamoDB calls on DynamoDB
// Local (make bench shows the same rows).
//
// A distribution of 100 lines: GetItem of the API key and of the
// Idempotency-Key, one BatchGetItem of the 100 beneficiaries (every
// beneficiary is checked before anything moves), and two
// TransactWriteItems: the first with the distribution, the key's record,
// the whole total taken from available and the first 85 lines credited;
// the second with the last 15 lines (each chunk at most 85 lines, at most
// 93 items). A distribution of 85 lines: the same with one write.
//
// A payment order: GetItem of the API key, the Idempotency-Key and the
// beneficiary, one TransactWriteItems (the key's record, the request_id's
// index entry, the order, its open entry, its event, the entry, four
// balances: the beneficiary's two and their aggregates: 10 items) and one
// SendMessage. Its consumer: GetItem of the order, the
// sandbox bank's GetItem and UpdateItem (its own record: a real bank is
// one HTTPS call instead), and one TransactWriteItems (the order, the open
// entry's removal, the event, the entry, two balances and an aggregate).
func TestCallsPerDistributionAndPaymentOrder(t *testing.T) {
	counter := dynamostore.NewCallCounter()
	client := dynamotest.Client(t, counter.Option())
	st := dynamostore.New(client, dynamotest.Tables(t, client), nil)
	q := &countingQueue{counts: map[string]int{}}
	e := &env{}
	build := func(d *app.Deps) (httpapi.Group, error) {
		q.Queue = d.Queue
		e.bank = bank.New(d.Store, d.Clock)
		e.svc = New(Config{Store: d.Store, Queue: q, Bank: e.bank, Clock: d.Clock, Log: d.Log})
		return e.svc.Group(), nil
	}
	e.Env = apitest.NewWith(t, apitest.Options{Store: st}, build)
	bens := e.many(100)
	ls, total := lines(bens, "KZT")
	e.fund(e.Account.ID, 2*total, "KZT")
	e.Do("GET", "/v1/distributions/balance", nil) // warm

	counter.Reset()
	r := e.Do("POST", "/v1/distributions", map[string]any{"reference": "counted", "lines": ls}, "Idempotency-Key", "counted-100")
	require.Equal(t, 201, r.Status, string(r.Body))
	require.Equal(t, map[string]int{"GetItem": 2, "BatchGetItem": 1, "Query": 1, "TransactWriteItems": 2}, counter.Counts(), "a distribution of 100 lines")

	counter.Reset()
	r = e.Do("POST", "/v1/distributions", map[string]any{"reference": "counted", "lines": ls[:ChunkLines]}, "Idempotency-Key", "counted-85")
	require.Equal(t, 201, r.Status, string(r.Body))
	require.Equal(t, map[string]int{"GetItem": 2, "BatchGetItem": 1, "Query": 1, "TransactWriteItems": 1}, counter.Counts(), "a distribution of 85 lines")

	counter.Reset()
	q.reset()
	r = e.Do("POST", "/v1/merchants/settlement-payment-orders", orderBody(bens[99], 50, "counted"), "Idempotency-Key", "counted-order")
	require.Equal(t, 201, r.Status, string(r.Body))
	id := r.Map(t)["id"].(string)
	require.Equal(t, map[string]int{"GetItem": 3, "TransactWriteItems": 1}, counter.Counts(), "a payment order")
	require.Equal(t, map[string]int{"SendMessage": 1}, q.reset())

	counter.Reset()
	body := fmt.Sprintf(`{"account_id":%q,"payment_order_id":%q}`, e.Account.ID, id)
	resp, err := app.SQSLambda(e.svc.Consume)(context.Background(), events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m1", Body: body}}})
	require.NoError(t, err)
	require.Empty(t, resp.BatchItemFailures)
	require.Equal(t, map[string]int{"GetItem": 2, "UpdateItem": 1, "TransactWriteItems": 1}, counter.Counts(), "the consumer")
	require.Equal(t, "paid", e.getOrder(id)["status"])
}

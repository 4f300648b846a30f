package transactions

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/store"
)

// TestCallsPerCaptureAndRefund counts DynamoDB calls on DynamoDB Local. A
// capture, a cancel or a refund: GetItem of the API key, GetItem of the
// idempotency key, GetItem of the payment, one TransactWriteItems (the
// key's record, the payment, its event, a refund's own record and index
// entry, the expiry entry's removal, the modification's due entry), then,
// once the card processor received the modification, one DeleteItem of its
// due entry. A replay: the two key reads only. A read: the API key and the
// payment.
func TestCallsPerCaptureAndRefund(t *testing.T) {
	counter := dynamostore.NewCallCounter()
	client := dynamotest.Client(t, counter.Option())
	st := dynamostore.New(client, dynamotest.Tables(t, client), nil)
	e := newEnv(t, backend{"dynamodb", func(testing.TB) store.Store { return st }})
	id := e.seed(seed{amount: 10000})
	e.get(id) // warm

	counter.Reset()
	r := e.Do("POST", "/v1/transactions/"+id+"/capture", map[string]any{"amount": 6000}, "Idempotency-Key", "counted-capture")
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Equal(t, map[string]int{"GetItem": 3, "TransactWriteItems": 1, "DeleteItem": 1}, counter.Counts(), "capture")

	counter.Reset()
	r = e.Do("POST", "/v1/transactions/"+id+"/refund", map[string]any{"amount": 1000}, "Idempotency-Key", "counted-refund")
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Equal(t, map[string]int{"GetItem": 3, "TransactWriteItems": 1, "DeleteItem": 1}, counter.Counts(), "refund")

	counter.Reset()
	r = e.Do("POST", "/v1/transactions/"+id+"/refund", map[string]any{"amount": 1000}, "Idempotency-Key", "counted-refund")
	require.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))
	require.Equal(t, map[string]int{"GetItem": 2}, counter.Counts(), "replayed refund")

	c := e.seed(seed{amount: 500})
	counter.Reset()
	r = e.Do("POST", "/v1/transactions/"+c+"/cancel", nil, "Idempotency-Key", "counted-cancel")
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Equal(t, map[string]int{"GetItem": 3, "TransactWriteItems": 1, "DeleteItem": 1}, counter.Counts(), "cancel")

	counter.Reset()
	e.get(id)
	require.Equal(t, map[string]int{"GetItem": 2}, counter.Counts(), "get")
	require.Equal(t, payments.PartiallyRefunded, payments.Status(e.get(id)["status"].(string)))
}

package orders

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
)

// TestDynamoCallsPerOrder counts DynamoDB calls on DynamoDB Local. A new
// order on a warm instance: GetItem of the API key (auth), GetItem of the
// idempotency key, one TransactWriteItems (idempotency record + order +
// debit + pending index + product check); the product and the balance come
// from the instance's caches, both verified by the transaction's conditions.
// A replay: the same two reads and no write. Only a lost race with a fresh
// balance (contention, not exercised here) takes the balance lease, which
// adds one write and one read.
func TestDynamoCallsPerOrder(t *testing.T) {
	counter := dynamostore.NewCallCounter()
	client := dynamotest.Client(t, counter.Option())
	st := dynamostore.New(client, dynamotest.Tables(t, client), nil)
	e := newEnv(t, envOpts{store: st, serial: true, ttl: 5 * 60e9})
	e.deposit(e.Account.ID, "USD", 100000)

	warm := e.order(map[string]any{"product_id": pCard})
	require.Equal(t, 201, warm.Status, string(warm.Body))
	cold := counter.Counts()
	t.Logf("first order of an instance (cold caches) and setup: %v", cold)

	counter.Reset()
	r := e.Do("POST", "/orders", map[string]any{"product_id": pCard}, "Idempotency-Key", "counted")
	require.Equal(t, 201, r.Status, string(r.Body))
	got := counter.Counts()
	t.Logf("new order: %v", got)
	require.Equal(t, map[string]int{"GetItem": 2, "TransactWriteItems": 1}, got)

	counter.Reset()
	r = e.Do("POST", "/orders", map[string]any{"product_id": pCard}, "Idempotency-Key", "counted")
	require.Equal(t, 201, r.Status)
	require.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))
	got = counter.Counts()
	t.Logf("replayed order: %v", got)
	require.Equal(t, map[string]int{"GetItem": 2}, got)

	// A deposit since the last order makes the cached balance stale: the
	// stale guess costs one failed transaction, which returns the balance as
	// it is (no read), then the real one.
	e.deposit(e.Account.ID, "USD", 1000)
	counter.Reset()
	r = e.order(map[string]any{"product_id": pCard})
	require.Equal(t, 201, r.Status)
	got = counter.Counts()
	t.Logf("new order after an outside balance change: %v", got)
	require.Equal(t, map[string]int{"GetItem": 2, "TransactWriteItems": 2}, got)
}

package customers

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/store"
)

// TestCallsPerRecurringPayment counts DynamoDB calls on DynamoDB Local. A
// recurring payment of card_token_id: GetItem of the API key, of the
// Idempotency-Key and of the token, then one TransactWriteItems (the key's
// record, the payment, its events, its order-reference and customer index
// entries; the capture is in the authorisation's write). By customer_id:
// the customer's GetItem and a Query of its tokens in place of the token's
// GetItem. A replay: the two key reads. infra/bench reports the same rows.
func TestCallsPerRecurringPayment(t *testing.T) {
	counter := dynamostore.NewCallCounter()
	client := dynamotest.Client(t, counter.Option())
	st := dynamostore.New(client, dynamotest.Tables(t, client), nil)
	e := newEnv(t, backend{"dynamodb", func(testing.TB) store.Store { return st }})
	s := e.saveCard("calls-shopper", "4111111111111111")

	counter.Reset()
	r := e.Do("POST", "/v1/payments/recurring", recurring(s.token, "calls-1"), "Idempotency-Key", "calls-recurring")
	require.Equal(t, 201, r.Status, "%s", r.Body)
	assert.Equal(t, "charged", r.Map(t)["status"])
	// The function's first card payment of the account also reads the
	// account's connector for its mode (kept 30 s: connect.Directory), so
	// the payment by customer_id below reads it no more.
	assert.Equal(t, map[string]int{"GetItem": 4, "TransactWriteItems": 1}, counter.Counts(), "by card_token_id, the first")

	counter.Reset()
	r = e.Do("POST", "/v1/payments/recurring", recurring(s.token, "calls-1"), "Idempotency-Key", "calls-recurring")
	require.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))
	assert.Equal(t, map[string]int{"GetItem": 2}, counter.Counts(), "replay")

	body := recurring("", "calls-2")
	delete(body, "card_token_id")
	body["customer_id"] = s.customer
	counter.Reset()
	r = e.Do("POST", "/v1/payments/recurring", body, "Idempotency-Key", "calls-recurring-2")
	require.Equal(t, 201, r.Status, "%s", r.Body)
	assert.Equal(t, map[string]int{"GetItem": 3, "Query": 1, "TransactWriteItems": 1}, counter.Counts(), "by customer_id")
}

// TestCallsPerUpdate counts an update's DynamoDB calls on DynamoDB Local:
// GetItem of the API key and of the Idempotency-Key, GetItem of the
// customer (and of a newly chosen default token), then one
// TransactWriteItems (the customer, its event, the key's record); an
// update that changes nothing writes the key's record alone (UpdateItem). A
// token's delete: GetItem of the API key, the token and the customer, then
// one TransactWriteItems.
func TestCallsPerUpdate(t *testing.T) {
	counter := dynamostore.NewCallCounter()
	client := dynamotest.Client(t, counter.Option())
	st := dynamostore.New(client, dynamotest.Tables(t, client), nil)
	e := newEnv(t, backend{"dynamodb", func(testing.TB) store.Store { return st }})
	s := e.saveCard("calls-upd", "4111111111111111")
	path := "/v1/customers/" + s.customer

	counter.Reset()
	r := e.Do("POST", path, map[string]any{"name": "Ana", "metadata": map[string]any{"k": "v"}}, "Idempotency-Key", "calls-upd-1")
	require.Equal(t, 200, r.Status, "%s", r.Body)
	assert.Equal(t, map[string]int{"GetItem": 3, "TransactWriteItems": 1}, counter.Counts(), "an update")

	counter.Reset()
	r = e.Do("POST", path, map[string]any{"default_card_token_id": s.token}, "Idempotency-Key", "calls-upd-2")
	require.Equal(t, 200, r.Status, "%s", r.Body)
	assert.Equal(t, map[string]int{"GetItem": 4, "TransactWriteItems": 1}, counter.Counts(), "choosing a default")

	counter.Reset()
	r = e.Do("POST", path, map[string]any{"name": "Ana"}, "Idempotency-Key", "calls-upd-3")
	require.Equal(t, 200, r.Status, "%s", r.Body)
	assert.Equal(t, map[string]int{"GetItem": 3, "UpdateItem": 1}, counter.Counts(), "no change: the key's record alone")

	counter.Reset()
	r = e.Do("DELETE", path+"/card-tokens/"+s.token, nil)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	assert.Equal(t, map[string]int{"GetItem": 3, "TransactWriteItems": 1}, counter.Counts(), "a token's delete")
}

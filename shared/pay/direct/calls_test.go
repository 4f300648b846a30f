package direct

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/domain/wallettokens"
	"github.com/paygate/paygate/shared/store"
)

// TestCallsPerDirectPayment counts DynamoDB calls on DynamoDB Local (doc.go
// says why each is there). A payment with the keyring read within the
// minute: GetItem of the API key and of the Idempotency-Key, then one
// TransactWriteItems (the key's record, the payment, its history, events,
// index and ledger entries; captured in the authorisation's write). With a
// wallet token: its GetItem too. GET /keys: the API key and the keyring.
func TestCallsPerDirectPayment(t *testing.T) {
	counter := dynamostore.NewCallCounter()
	client := dynamotest.Client(t, counter.Option())
	st := dynamostore.New(client, dynamotest.Tables(t, client), nil)
	e := newEnv(t, backend{"dynamodb", func(testing.TB) store.Store { return st }})
	jwe := e.encrypt(e.card("4111111111111111", "737")) // reads the keyring: warm

	counter.Reset()
	r := e.pay(body(jwe, "calls-1"))
	require.Equal(t, 201, r.Status, "%s", r.Body)
	assert.Equal(t, map[string]int{"GetItem": 2, "TransactWriteItems": 1}, counter.Counts(), "encrypted card")

	id := e.token(wallettokens.GooglePay, "calls-msg", "4111111111111111", "AgAAAAAABk4DWZ4C28yUQAAAAAA=", nil)
	b := body("", "calls-2")
	delete(b, "encrypted_card")
	b["payment_token_id"] = id
	counter.Reset()
	r = e.pay(b)
	require.Equal(t, 201, r.Status, "%s", r.Body)
	assert.Equal(t, map[string]int{"GetItem": 3, "TransactWriteItems": 1}, counter.Counts(), "payment token")

	counter.Reset()
	r = e.Do("GET", "/v1/payments/direct/keys", nil)
	require.Equal(t, 200, r.Status)
	assert.Equal(t, map[string]int{"GetItem": 2}, counter.Counts(), "keys")
}

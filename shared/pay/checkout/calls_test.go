package checkout_test

import (
	"testing"

	"github.com/paygate/paygate/shared/pay/checkout"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// countingEnv serves the server-side checkout groups over DynamoDB Local
// with every SDK call counted. Skips without DYNAMODB_ENDPOINT (fails with
// REQUIRE_REAL_SERVERS=1).
func countingEnv(t *testing.T) (*apitest.Env, *dynamostore.CallCounter) {
	t.Helper()
	counter := dynamostore.NewCallCounter()
	client := dynamotest.Client(t, counter.Option())
	clock := &apitest.Clock{}
	st := dynamostore.New(client, dynamotest.Tables(t, client), clock.Now)
	e := apitest.NewWith(t, apitest.Options{Store: st, Clock: clock}, checkout.BuildCheckoutSessions, checkout.BuildCheckoutPayments, checkout.BuildCheckoutClient)
	return e, counter
}

// counted runs one request with the counter reset before it and returns the
// SDK calls it made.
func counted(t *testing.T, e *apitest.Env, c *dynamostore.CallCounter, want int, method, path string, body any, headers ...string) map[string]int {
	t.Helper()
	c.Reset()
	r := e.Do(method, path, body, headers...)
	require.Equal(t, want, r.Status, "%s", r.Body)
	return c.Counts()
}

// TestDynamoCallsPerSession holds POST /v2/sessions to the target:
// the key read, then one write call (the session, its live marker and its
// expiry-index entry in one TransactWriteItems), and nothing else. With an Idempotency-Key the key's
// record is read first (one more GetItem) and written in that same
// transaction, so the write count stays one; a replay is the two reads only.
func TestDynamoCallsPerSession(t *testing.T) {
	e, c := countingEnv(t)

	got := counted(t, e, c, 201, "POST", "/v2/sessions", sessionBody(e, map[string]any{"reference": "calls-plain"}))
	assert.Equal(t, map[string]int{"GetItem": 1, "TransactWriteItems": 1}, got, "no Idempotency-Key")

	body := sessionBody(e, map[string]any{"reference": "calls-keyed"})
	got = counted(t, e, c, 201, "POST", "/v2/sessions", body, "Idempotency-Key", "calls-session-1")
	assert.Equal(t, map[string]int{"GetItem": 2, "TransactWriteItems": 1}, got, "with Idempotency-Key")

	got = counted(t, e, c, 201, "POST", "/v2/sessions", body, "Idempotency-Key", "calls-session-1")
	assert.Equal(t, map[string]int{"GetItem": 2}, got, "replay: the key and the stored result, no write")
}

// TestDynamoCallsPerAuthorisedPayment counts an advanced-flow card payment
// that authorises at once (4111 1111 1111 1111): the key read, then the
// payment record, its history and its event in one TransactWriteItems.
// With an Idempotency-Key: one more GetItem (the key's record) and the
// record joins that same transaction.
func TestDynamoCallsPerAuthorisedPayment(t *testing.T) {
	e, c := countingEnv(t)

	// The first card payment of an account in a function instance also
	// reads the account's connector for its mode (none here: the
	// sandbox); the answer is kept 30 s (connect.Directory).
	got := counted(t, e, c, 200, "POST", "/v2/payments", paymentBody("calls-pay-cold", card("4111111111111111")))
	assert.Equal(t, map[string]int{"GetItem": 2, "TransactWriteItems": 1}, got, "the first: the connector's lookup too")

	got = counted(t, e, c, 200, "POST", "/v2/payments", paymentBody("calls-pay-plain", card("4111111111111111")))
	assert.Equal(t, map[string]int{"GetItem": 1, "TransactWriteItems": 1}, got, "no Idempotency-Key")

	body := paymentBody("calls-pay-keyed", card("4111111111111111"))
	got = counted(t, e, c, 200, "POST", "/v2/payments", body, "Idempotency-Key", "calls-pay-1")
	assert.Equal(t, map[string]int{"GetItem": 2, "TransactWriteItems": 1}, got, "with Idempotency-Key")

	got = counted(t, e, c, 200, "POST", "/v2/payments", body, "Idempotency-Key", "calls-pay-1")
	assert.Equal(t, map[string]int{"GetItem": 2}, got, "replay")
}

// TestDynamoCallsPerSessionPayment counts the drop-in's payment on a session
// (client key, 4111 1111 1111 1111): the key read, the session read, then
// one TransactWriteItems holding the payment, its event, the session at the
// version read and the check of the session's live marker.
func TestDynamoCallsPerSessionPayment(t *testing.T) {
	e, c := countingEnv(t)
	ck := e.NewClientKey(origin)
	// A first payment, on another session, reads the account's connector
	// lookup (kept 30 s per instance, connect.Directory).
	warm := createSession(t, e, map[string]any{"reference": "calls-session-warm"})
	r := clientDo(e, ck, "/v2/client/sessions/"+warm.ID+"/payments", map[string]any{"sessionData": warm.SessionData, "paymentMethod": card("4111111111111111")})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	s := createSession(t, e, map[string]any{"reference": "calls-session-pay"})

	c.Reset()
	r = clientDo(e, ck, "/v2/client/sessions/"+s.ID+"/payments", map[string]any{"sessionData": s.SessionData, "paymentMethod": card("4111111111111111")})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	assert.Equal(t, map[string]int{"GetItem": 2, "TransactWriteItems": 1}, c.Counts())
}

package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/infra/runtimeapi"
	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
)

func moduleRoot(tb testing.TB) string {
	root, err := runtimeapi.ModuleRoot(".")
	require.NoError(tb, err)
	return root
}

// BenchmarkMerchantDetailsWarm is a warm MerchantsFunction invocation in
// process: GET /v1/merchants/me through the API Gateway v2 adapter on the
// embedded store.
func BenchmarkMerchantDetailsWarm(b *testing.B) {
	benchMerchantDetailsWarm(b, moduleRoot(b))
}

// BenchmarkAdapterFloor is the warm GET's event through the API Gateway v2
// adapter to a handler that writes a fixed body: the adapter's own cost.
func BenchmarkAdapterFloor(b *testing.B) {
	benchAdapterFloor(b, moduleRoot(b))
}

// TestDynamoCallsPerAuthenticatedRequest holds authentication to its
// promise: one consistent GetItem for the key, no Scan, nothing else; and
// GET /v1/merchants/me to that plus the account read. Counts are not
// timings, so this is a test.
func TestDynamoCallsPerAuthenticatedRequest(t *testing.T) {
	endpoint := dynamotest.Endpoint(t)
	c, err := measureDynamoCalls(context.Background(), endpoint)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"GetItem": 1}, c.Auth, "authenticating a key")
	assert.Zero(t, c.Request["Scan"], "no Scan on a request path")
	assert.Equal(t, map[string]int{"GetItem": 2}, c.Request, "GET /v1/merchants/me: the key, then the account")
}

// TestWarmFixtureAnswers keeps the benchmark honest: its request must get
// the 200 it measures, not a cheap 401.
func TestWarmFixtureAnswers(t *testing.T) {
	f, err := newWarmFixture(context.Background(), moduleRoot(t))
	require.NoError(t, err)
	defer f.close()
	require.NoError(t, f.serve(context.Background()))
}

package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/testkit/apitest/realservers"
)

// The call counts are measured for real (DynamoDB Local, moto) and hold the
// pipeline to its design: one Query and one SendMessage to publish, one
// transaction per attempt, no SQS call from a successful attempt.
func TestWebhookCallCounts(t *testing.T) {
	realservers.Endpoint(t, "DYNAMODB_ENDPOINT", "infra/scripts/dynamodb-local.sh start")
	realservers.Endpoint(t, "SQS_ENDPOINT", "infra/scripts/moto.sh start")
	rows, err := webhookCallRows(t.Context())
	require.NoError(t, err)
	require.Len(t, rows, 3)
	for _, r := range rows {
		t.Logf("%s: %s", r.name, r.value)
		require.NotEqual(t, "MISSED", r.ok, "%s: %s (target %s)", r.name, r.value, r.target)
	}
}

// The delivery rows run for real against an in-process server: here, the
// gateway the bench builds and starts (make bench measures the same).
func TestWebhookLoadRows(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the gateway")
	}
	root := "../.."
	rows, err := webhookLoadRows(t.Context(), root)
	require.NoError(t, err)
	require.Len(t, rows, 2)
	for _, r := range rows {
		t.Logf("%s: %s", r.name, r.value)
	}
}

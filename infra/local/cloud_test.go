package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// cloudEnv is the environment of a gateway on DynamoDB Local and moto, its
// tables and queues under a prefix of its own; the test is skipped without
// the servers unless REQUIRE_REAL_SERVERS is set (make test sets it).
func cloudEnv(t *testing.T, key string) map[string]string {
	t.Helper()
	ddb, sqs := os.Getenv("DYNAMODB_ENDPOINT"), os.Getenv("SQS_ENDPOINT")
	if ddb == "" || sqs == "" {
		if os.Getenv("REQUIRE_REAL_SERVERS") != "" {
			t.Fatal("REQUIRE_REAL_SERVERS is set but DYNAMODB_ENDPOINT or SQS_ENDPOINT is not")
		}
		t.Skip("DYNAMODB_ENDPOINT and SQS_ENDPOINT not set")
	}
	return map[string]string{
		"STORE": "dynamodb", "DYNAMODB_ENDPOINT": ddb, "SQS_ENDPOINT": sqs,
		"TABLE_PREFIX": "lg" + strings.ReplaceAll(uuid.NewString(), "-", "")[:10] + "-", "SANDBOX_API_KEY": key,
	}
}

// The whole API on the real servers' APIs: STORE=dynamodb provisions the
// tables and queues, an order runs through the orders queue's consumer, its
// event through DynamoDB Local's stream to the publisher, the webhooks queue
// on moto to the sender, and the receiver gets it. A restart over the same
// tables resumes each stream from its checkpoint.
func TestGatewayOnDynamoDBLocalAndMoto(t *testing.T) {
	const key = "sk_test_cloudgateway0123456789abcdef"
	env, dir := cloudEnv(t, key), t.TempDir()
	g := start(t, dir, env, nil)
	status, me := g.get(t, "/v1/merchants/me", key)
	require.Equal(t, 200, status, "%v", me)
	orderOutcomeReachesTheReceiver(t, g, key)
	g.stop()

	// The checkpoint of the webhook publisher names the shards it read.
	b, err := os.ReadFile(filepath.Join(dir, "streams", "WebhookPublisherFunction.json"))
	require.NoError(t, err)
	var seqs map[string]string
	require.NoError(t, json.Unmarshal(b, &seqs))
	require.NotEmpty(t, seqs)

	g = start(t, dir, env, nil)
	orderOutcomeReachesTheReceiver(t, g, key)
	g.stop()
}

package main

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckoutLoadInProcess runs the checkout load rows briefly: every
// request must get its success status (the probe also checks that the
// payment is Authorised), and the rows must carry the /health ratio.
func TestCheckoutLoadInProcess(t *testing.T) {
	rows, err := checkoutLoad(context.Background(), options{concurrency: 4, loadFor: 300 * time.Millisecond})
	require.NoError(t, err)
	require.Len(t, rows, 2)
	for _, r := range rows {
		assert.Equal(t, "ok", r.ok, "%s: %s", r.name, r.value)
		assert.Contains(t, r.value, "of /health")
		t.Logf("%s | %s | %s | %s", r.name, r.value, r.target, r.ok)
	}
}

// TestCheckoutDynamoRows checks the checkout rows on DynamoDB Local meet
// their targets (the exact counts are asserted in shared/checkout).
func TestCheckoutDynamoRows(t *testing.T) {
	if os.Getenv("DYNAMODB_ENDPOINT") == "" {
		if os.Getenv("REQUIRE_REAL_SERVERS") == "1" {
			t.Fatal("DYNAMODB_ENDPOINT is not set and REQUIRE_REAL_SERVERS=1 (start infra/scripts/dynamodb-local.sh)")
		}
		t.Skip("DYNAMODB_ENDPOINT is not set")
	}
	rows, err := checkoutDynamoRows(context.Background())
	require.NoError(t, err)
	require.Len(t, rows, 3)
	for _, r := range rows {
		assert.Equal(t, "ok", r.ok, "%s: %s", r.name, r.value)
		t.Logf("%s | %s | %s | %s", r.name, r.value, r.target, r.ok)
	}
}

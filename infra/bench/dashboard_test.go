package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
)

// TestDashboardDynamoRows: a signed-in page and a dashboard refund make the
// calls the rows state (the audit entry rides in the refund's transaction:
// no write call of its own).
func TestDashboardDynamoRows(t *testing.T) {
	dynamotest.Endpoint(t)
	rows, err := dashboardDynamoRows(context.Background())
	require.NoError(t, err)
	require.Len(t, rows, 2)
	for _, r := range rows {
		assert.Equal(t, "ok", r.ok, "%s: %s", r.name, r.value)
		t.Logf("%s | %s | %s | %s", r.name, r.value, r.target, r.ok)
	}
}

// TestDashboardPageRows runs the page rows once, briefly: they sign in,
// load and refund without a failure (the figures are make bench's).
func TestDashboardPageRows(t *testing.T) {
	rows, err := dashboardPageRows(context.Background(), options{loadFor: 200 * time.Millisecond, concurrency: 4})
	require.NoError(t, err)
	require.Len(t, rows, 3)
	assert.Equal(t, "ok", rows[1].ok, "%s: %s", rows[1].name, rows[1].value)
}

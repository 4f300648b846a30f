package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
)

func TestTransactionDynamoRows(t *testing.T) {
	dynamotest.Endpoint(t)
	rows, err := txDynamoRows(context.Background())
	require.NoError(t, err)
	require.Len(t, rows, 4)
	for _, r := range rows {
		assert.Equal(t, "ok", r.ok, "%s: %s", r.name, r.value)
		t.Logf("%s | %s | %s | %s", r.name, r.value, r.target, r.ok)
	}
}

func TestRecurringDynamoRows(t *testing.T) {
	dynamotest.Endpoint(t)
	rows, err := recurringDynamoRows(context.Background())
	require.NoError(t, err)
	require.Len(t, rows, 3)
	for _, r := range rows {
		assert.Equal(t, "ok", r.ok, "%s: %s", r.name, r.value)
		t.Logf("%s | %s | %s | %s", r.name, r.value, r.target, r.ok)
	}
}

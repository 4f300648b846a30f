package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
)

// TestCheckoutDynamoRows checks the checkout rows on DynamoDB Local meet
// their targets (the exact counts are asserted in shared/pay/checkout).
func TestCheckoutDynamoRows(t *testing.T) {
	dynamotest.Endpoint(t)
	rows, err := checkoutDynamoRows(context.Background())
	require.NoError(t, err)
	require.Len(t, rows, 3)
	for _, r := range rows {
		assert.Equal(t, "ok", r.ok, "%s: %s", r.name, r.value)
		t.Logf("%s | %s | %s | %s", r.name, r.value, r.target, r.ok)
	}
}

// TestOrderDynamoRows checks the order rows on DynamoDB Local meet issue 3's
// targets (shared/gate/orders asserts the exact counts).
func TestOrderDynamoRows(t *testing.T) {
	dynamotest.Endpoint(t)
	rows, err := orderDynamoRows(context.Background())
	require.NoError(t, err)
	require.Len(t, rows, 3)
	for _, r := range rows {
		assert.NotEqual(t, "MISSED", r.ok, "%s: %s", r.name, r.value)
		t.Logf("%s | %s | %s | %s", r.name, r.value, r.target, r.ok)
	}
}

func TestNewOrderTarget(t *testing.T) {
	assert.True(t, newOrderOK(map[string]int{"GetItem": 2, "TransactWriteItems": 1}))
	assert.True(t, newOrderOK(map[string]int{"GetItem": 1, "TransactWriteItems": 1}))
	assert.False(t, newOrderOK(map[string]int{"GetItem": 2, "TransactWriteItems": 2}), "two write calls")
	assert.False(t, newOrderOK(map[string]int{"GetItem": 3, "TransactWriteItems": 1}), "three reads")
	assert.False(t, newOrderOK(map[string]int{"GetItem": 2, "TransactWriteItems": 1, "Scan": 1}))
	assert.False(t, newOrderOK(map[string]int{"GetItem": 2}), "no write")
}

// TestWalletDynamoRows checks the wallet rows on DynamoDB Local meet their
// targets (shared/pay/wallet asserts the exact counts).
func TestWalletDynamoRows(t *testing.T) {
	dynamotest.Endpoint(t)
	rows, err := walletDynamoRows(context.Background())
	require.NoError(t, err)
	require.Len(t, rows, 4)
	for _, r := range rows {
		assert.Equal(t, "ok", r.ok, "%s: %s", r.name, r.value)
		t.Logf("%s | %s | %s | %s", r.name, r.value, r.target, r.ok)
	}
}

package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/testkit/apitest/browser"
)

func TestLinkDynamoRows(t *testing.T) {
	dynamotest.Endpoint(t)
	rows, err := linkDynamoRows(context.Background())
	require.NoError(t, err)
	require.Len(t, rows, 3)
	for _, r := range rows {
		assert.Equal(t, "ok", r.ok, "%s: %s", r.name, r.value)
		t.Logf("%s | %s | %s | %s", r.name, r.value, r.target, r.ok)
	}
}

// TestHostedPageRows runs the page's benchmark rows once (make bench prints
// them): they load, in a real browser.
func TestHostedPageRows(t *testing.T) {
	browser.New(t) // skips or fails as the browser tests do
	rows, err := hostedPageRows(context.Background())
	require.NoError(t, err)
	require.Len(t, rows, 3)
	for _, r := range rows {
		assert.NotEqual(t, "MISSED", r.ok, "%s: %s", r.name, r.value)
		t.Logf("%s | %s | %s | %s", r.name, r.value, r.target, r.ok)
	}
}

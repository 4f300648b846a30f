package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLedgerRows(t *testing.T) {
	rows, err := ledgerRows(context.Background(), 2000)
	require.NoError(t, err)
	require.Len(t, rows, 1)
	assert.Equal(t, "ok", rows[0].ok, rows[0].value)
	assert.Contains(t, rows[0].name, "2000 entries")
	t.Logf("%s | %s | %s | %s", rows[0].name, rows[0].value, rows[0].target, rows[0].ok)
}

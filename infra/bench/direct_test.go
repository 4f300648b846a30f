package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/testkit/apitest/realservers"
)

// TestDirectRows: the direct payment benchmark runs, and a payment whose
// keyring is on moto's KMS makes exactly one KMS call, Decrypt.
func TestDirectRows(t *testing.T) {
	realservers.Endpoint(t, "SQS_ENDPOINT", "infra/scripts/moto.sh start")
	if testing.Short() {
		t.Skip("runs a benchmark")
	}
	rows, err := directRows(context.Background())
	require.NoError(t, err)
	require.Len(t, rows, 2)
	assert.Contains(t, rows[0].value, "ns/op")
	assert.Equal(t, "Decrypt=1", rows[1].value)
	assert.Equal(t, "ok", rows[1].ok)
	for _, r := range rows {
		t.Logf("%s | %s | %s | %s", r.name, r.value, r.target, r.ok)
	}
}

func BenchmarkDirectPayment(b *testing.B) { benchDirectPayment(b) }

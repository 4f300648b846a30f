package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestColdEventIsOneTheFunctionAnswers(t *testing.T) {
	root := moduleRoot(t)
	ev, status, err := coldEvent(root, "GateOrdersFunction")
	require.NoError(t, err)
	assert.Equal(t, "gate-orders-list.json", ev)
	assert.Equal(t, 200, status)
	ev, status, err = coldEvent(root, "HealthFunction")
	require.NoError(t, err)
	assert.Equal(t, "health-get.json", ev)
	assert.Equal(t, 200, status)
	// No fixed event pays through the drop-in: its 404 still reads the key
	// and the store.
	ev, status, err = coldEvent(root, "CheckoutClientFunction")
	require.NoError(t, err)
	assert.Equal(t, "checkout-client-setup-missing.json", ev)
	assert.Equal(t, 404, status)
	_, _, err = coldEvent(root, "NoSuchFunction")
	assert.ErrorContains(t, err, "NoSuchFunction")
}

// TestColdStartRows runs the cold start step once per subject: each binary
// builds, starts under the fake Runtime API and answers 200, and the rows
// name the baseline, the SDK floor, Health and the largest function.
func TestColdStartRows(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts five binaries")
	}
	t.Setenv("DYNAMODB_ENDPOINT", "") // the DynamoDB Local row has its own test in make bench
	ctx := context.Background()
	root := moduleRoot(t)
	fns, err := templateFunctions(root)
	require.NoError(t, err)
	largest, ok := findFunction(fns, "GateOrdersFunction")
	require.True(t, ok)
	rows, err := coldStarts(ctx, root, fns, largest, 1)
	require.NoError(t, err)
	require.Len(t, rows, 4)
	for i, want := range []string{"hello world (aws-lambda-go)", "hello world + the SDK", "HealthFunction", "GateOrdersFunction (the largest binary)"} {
		assert.Contains(t, rows[i].name, want)
		t.Logf("%s | %s | %s | %s", rows[i].name, rows[i].value, rows[i].target, rows[i].ok)
	}
	assert.Equal(t, "<= 1.5x hello + SDK", rows[3].target)
	assert.Contains(t, rows[3].value, "x hello + SDK")
	assert.Contains(t, []string{"ok", "MISSED"}, rows[3].ok)
	_, err = coldStarts(ctx, root, fns, function{}, 1)
	assert.Error(t, err, "no largest function")
}

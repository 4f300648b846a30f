package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// quick is a load run short enough for go test.
var quick = options{concurrency: 4, loadFor: 300 * time.Millisecond, loadRequests: 200}

// checkLoadRows holds the load rows to their shape: the baseline, then
// orders, sessions, payments, wallet authorisations, refunds and recurring
// payments, each a success with the /health ratio and the target named.
func checkLoadRows(t *testing.T, rows []row, targetName string) {
	t.Helper()
	require.Len(t, rows, 7)
	for i, want := range []string{"GET /health", "POST /orders", "POST /v2/sessions", "POST /v2/payments", "POST /v1/wallet/authorize",
		"POST /v1/transactions/{id}/refund", "POST /v1/payments/recurring"} {
		assert.Contains(t, rows[i].name, want)
		assert.Contains(t, rows[i].name, "["+targetName+"]")
		assert.Equal(t, "ok", rows[i].ok, "%s: %s", rows[i].name, rows[i].value)
		t.Logf("%s | %s | %s | %s", rows[i].name, rows[i].value, rows[i].target, rows[i].ok)
	}
	for _, r := range rows[1:] {
		assert.Contains(t, r.value, "of /health")
		assert.NotContains(t, r.value, "all answers", "only successes")
	}
}

func TestLoadRowsInProcess(t *testing.T) {
	tg, stop, err := openTarget(context.Background(), targetInProcess, moduleRoot(t))
	require.NoError(t, err)
	defer func() { assert.NoError(t, stop()) }()
	rows, err := measureLoad(context.Background(), quick, tg)
	require.NoError(t, err)
	checkLoadRows(t, rows, "in-process server")
}

// TestGatewayStartsServesAndStops builds and starts the real local gateway,
// runs the load rows through it briefly, and checks stop leaves nothing
// behind: no process, no directory.
func TestGatewayStartsServesAndStops(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts ./infra/local")
	}
	ctx := context.Background()
	g, err := startGateway(ctx, moduleRoot(t))
	require.NoError(t, err)
	stopped := false
	defer func() {
		if !stopped {
			_ = g.stop()
		}
	}()

	// The key it was given authenticates, and the seeded deposit is there.
	req, _ := http.NewRequest(http.MethodGet, g.url+"/balance", nil)
	req.Header.Set("Authorization", g.key)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.Contains(t, string(body), "1000.00")

	rows, err := measureLoad(ctx, quick, g.target)
	require.NoError(t, err)
	checkLoadRows(t, rows, "local gateway")

	stopped = true
	require.NoError(t, g.stop(), "a SIGTERM ends it cleanly")
	assert.NotNil(t, g.cmd.ProcessState, "the process was waited for")
	_, err = os.Stat(g.dir)
	assert.True(t, os.IsNotExist(err), "its directory is removed")
	_, err = http.Get(g.url + "/health")
	assert.Error(t, err, "nothing listens any more")
}

func TestOpenTargetRefusesUnknownKinds(t *testing.T) {
	_, _, err := openTarget(context.Background(), "remote", moduleRoot(t))
	assert.ErrorContains(t, err, "-load-target")
}

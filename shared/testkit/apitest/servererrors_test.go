package apitest

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScanServerErrorsFindsUnexpected5xx: the scan fails on a 5xx of a
// server that did not allow them, names it, and passes allowed ones and 4xx.
func TestScanServerErrorsFindsUnexpected5xx(t *testing.T) {
	strict, lenient := registerEnv("TestStrict"), registerEnv("TestLenient")
	envMu.Lock()
	envAllows[lenient] = "injects a store outage"
	envMu.Unlock()
	line := func(env int64, status int) string {
		return `{"level":"INFO","msg":"request","method":"POST","route":"POST /orders","status":` +
			strconv.Itoa(status) + `,"test_env":` + strconv.FormatInt(env, 10) + "}\n"
	}
	require.NoError(t, scanServerErrors(line(strict, 400)+line(lenient, 503)+"not json\n"))
	err := scanServerErrors(line(strict, 201) + line(strict, 500) + line(lenient, 500))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "1 unexpected 5xx")
	assert.Contains(t, err.Error(), "500 on POST POST /orders in TestStrict")
}

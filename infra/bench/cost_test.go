package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/infra/samtemplate"
	"github.com/paygate/paygate/shared/apitest/realservers"
)

// TestCostRows: the cost table is computed from real measurements (DynamoDB
// Local, moto) for every operation the issue names, and each row names its
// biggest charge.
func TestCostRows(t *testing.T) {
	realservers.Endpoint(t, "DYNAMODB_ENDPOINT", "infra/scripts/dynamodb-local.sh start")
	realservers.Endpoint(t, "SQS_ENDPOINT", "infra/scripts/moto.sh start")
	rows, err := costRows(t.Context(), "../..")
	require.NoError(t, err)
	names := []string{"authenticated GETs", "orders", "card payments", "refunds", "webhook deliveries", "prices"}
	require.Len(t, rows, len(names))
	for i, r := range rows {
		t.Logf("%s: %s", r.name, r.value)
		assert.Contains(t, r.name, names[i])
		if i < len(names)-1 {
			assert.Contains(t, r.value, "; biggest: ")
			assert.NotContains(t, r.value, "NaN")
		}
	}
	// A card payment is one transaction: its units are doubled.
	assert.Regexp(t, `CheckoutPaymentsFunction 1 x \(\d+ ms at \d+ MB, 2\.0 RRU, [1-9]\d*[02468]\.0 WRU`, rows[2].value)
}

func TestPricesAreComplete(t *testing.T) {
	p, err := loadPrices()
	require.NoError(t, err)
	assert.NotEmpty(t, p.Region)
	for name, v := range map[string]float64{"http api": p.HTTPAPI, "lambda requests": p.LambdaRequests, "lambda GB-s": p.LambdaGBs,
		"WRU": p.WRU, "RRU": p.RRU, "SQS": p.SQS, "logs": p.LogsGB, "x-ray": p.XRay, "transfer": p.TransferGB,
		"dynamodb call": p.Assumed.DynamoCallMs, "transaction": p.Assumed.DynamoTransactMs, "sqs call": p.Assumed.SQSCallMs} {
		assert.Positive(t, v, name)
	}
}

// TestHotBalanceRows: the one-balance rows run on both stores at 1, 10 and
// 50 clients (here briefly) and every run moves the balance by exactly the
// orders it answered 201.
func TestHotBalanceRows(t *testing.T) {
	if testing.Short() {
		t.Skip("load runs")
	}
	realservers.Endpoint(t, "DYNAMODB_ENDPOINT", "infra/scripts/dynamodb-local.sh start")
	rows, err := hotBalanceRows(t.Context(), options{loadFor: 300 * time.Millisecond, loadRequests: 200})
	require.NoError(t, err)
	require.Len(t, rows, 7)
	for _, r := range rows {
		t.Logf("%s: %s", r.name, r.value)
		assert.NotContains(t, r.value, "BALANCE MOVED")
		if !strings.Contains(r.target, ">= 150") { // a rate is a benchmark's verdict, not a test's
			assert.Equal(t, "ok", r.ok, r.name)
		}
	}
}

// TestPlatformLinesFollowTheTemplate: Lambda's own log lines are priced only
// when the template's SystemLogLevel keeps them.
func TestPlatformLinesFollowTheTemplate(t *testing.T) {
	for yaml, want := range map[string]string{
		"Parameters:\n  SystemLogLevel:\n    Type: String\n    Default: WARN\n": "WARN",
		"Parameters:\n  SystemLogLevel:\n    Type: String\n    Default: INFO\n": "INFO",
		"Parameters: {}\n": "INFO",
	} {
		tpl, err := samtemplate.Parse([]byte(yaml + "Resources:\n  T:\n    Type: AWS::SNS::Topic\n"))
		require.NoError(t, err)
		assert.Equal(t, want, systemLogLevel(tpl), yaml)
	}
	tpl, err := samtemplate.Load("../../template.yaml")
	require.NoError(t, err)
	assert.Equal(t, "WARN", systemLogLevel(tpl), "the stack's default drops Lambda's per-invocation lines")
}

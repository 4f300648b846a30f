package main

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/infra/samtemplate"
	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/testkit/apitest/realservers"
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
		"dynamodb call": p.Assumed.DynamoCallMs, "transaction": p.Assumed.DynamoTransactMs, "sqs call": p.Assumed.SQSCallMs,
		"WCU-hour": p.WCUHour, "RCU-hour": p.RCUHour, "reserved WCU upfront": p.Reserved.WCUUpfront, "reserved WCU-hour": p.Reserved.WCUHour,
		"reserved RCU upfront": p.Reserved.RCUUpfront, "reserved RCU-hour": p.Reserved.RCUHour, "reserved term": p.Reserved.TermHours,
		"utilisation": p.Assumed.DynamoUtil} {
		assert.Positive(t, v, name)
	}
	assert.NotEmpty(t, p.CapacityChecked, "say when the capacity prices were checked")
	assert.LessOrEqual(t, p.Assumed.DynamoUtil, 1.0, "a utilisation is a share of the capacity")
	assert.Equal(t, 8760.0, p.Reserved.TermHours, "a 1-year term")
	// At the assumed use, each way is cheaper per unit than the one before
	// (else nobody would pick it, and a price would be wrong).
	od, pr, rs := p.onDemand(), p.provisioned(), p.reserved()
	assert.Less(t, rs.write, pr.write)
	assert.Less(t, pr.write, od.write)
	assert.Less(t, rs.read, pr.read)
	assert.Less(t, pr.read, od.read)
}

// TestCapacityPrices: the provisioned and reserved prices per million units,
// and an operation's totals in the three columns, against figures worked by
// hand from the us-east-1 list prices (a factor dropped or doubled fails).
func TestCapacityPrices(t *testing.T) {
	var p priceList
	p.RRU, p.WRU = 0.125, 0.625
	p.WCUHour, p.RCUHour = 0.00065, 0.00013
	p.Reserved.WCUUpfront, p.Reserved.WCUHour = 150, 0.0128
	p.Reserved.RCUUpfront, p.Reserved.RCUHour = 30, 0.0025
	p.Reserved.TermHours = 8760
	p.Assumed.DynamoUtil = 0.70
	p.HTTPAPI, p.LambdaRequests = 1, 0.2

	// A unit-second of capacity at 70% use serves 0.7 units; a million
	// units take 1e6 / 0.7 / 3600 = 396.825... unit-hours.
	//   provisioned write: 0.00065 x 1e6 / 3600 / 0.7 = 650 / 2520
	//   provisioned read:  0.00013 x 1e6 / 3600 / 0.7 = 130 / 2520
	//   reserved write: (150 / 8760 + 0.0128) / 100 = 0.000299232877 a WCU-hour,
	//                   x 1e6 / 2520
	//   reserved read:  (30 / 8760 + 0.0025) / 100 = 0.0000592465753 an RCU-hour,
	//                   x 1e6 / 2520
	const tol = 1e-9
	od, pr, rs := p.onDemand(), p.provisioned(), p.reserved()
	assert.InDelta(t, 0.625, od.write, tol)
	assert.InDelta(t, 0.125, od.read, tol)
	assert.InDelta(t, 0.257936508, pr.write, tol)
	assert.InDelta(t, 0.051587302, pr.read, tol)
	assert.InDelta(t, 0.118743205, rs.write, tol)
	assert.InDelta(t, 0.023510546, rs.read, tol)

	// An operation of two stages: an API invocation of 2 RRU and 18 WRU (a
	// card payment's), and two invocations of 1 RRU and 0.5 WRU each.
	op := costOp{name: "test", stages: []stage{
		{function: "A", api: true, per: 1, units: dynamostore.Units{Read: 2, Write: 18}},
		{function: "B", per: 2, units: dynamostore.Units{Read: 1, Write: 0.5}},
	}}
	po, err := priceOp(op, p, map[string]int{"A": 128, "B": 128})
	require.NoError(t, err)
	// DynamoDB on demand: 2 x 0.125 + 18 x 0.625 + 2 x (0.125 + 0.5 x 0.625)
	// = 11.5 + 0.875; the rest: HTTP API 1 + Lambda requests 3 x 0.2 (no
	// duration, logs, traces or bytes in this price list).
	assert.InDelta(t, 12.375, po.by[chargeDynamo], tol)
	assert.InDelta(t, 1.0, po.by[chargeAPI], tol)
	assert.InDelta(t, 0.6, po.by[chargeLambda], tol)
	assert.InDelta(t, 13.975, po.total, tol)
	// Provisioned: the rest, 1.6, + (2 + 2) x 130/2520 + (18 + 1) x 650/2520
	// = 1.6 + 5.107142857; reserved: 1.6 + 4 x 0.023510546 + 19 x 0.118743205.
	assert.InDelta(t, 6.707142857, po.provisioned, tol)
	assert.InDelta(t, 3.950163079, po.reserved, tol)

	_, err = priceOp(op, p, map[string]int{"A": 128})
	assert.ErrorContains(t, err, "no function B")
}

// TestUtilisationIsTheScalingTarget: the provisioned and reserved columns
// assume the use the template's auto scaling holds the tables at.
func TestUtilisationIsTheScalingTarget(t *testing.T) {
	p, err := loadPrices()
	require.NoError(t, err)
	tpl, err := samtemplate.Load("../../template.yaml")
	require.NoError(t, err)
	policies := tpl.ResourcesOfType("AWS::ApplicationAutoScaling::ScalingPolicy")
	require.NotEmpty(t, policies, "template.yaml has no scaling policy (TableCapacity=provisioned)")
	for _, r := range policies {
		cfg, _ := r.Properties["TargetTrackingScalingPolicyConfiguration"].(map[string]any)
		target, err := strconv.ParseFloat(samtemplate.Raw(cfg["TargetValue"]), 64)
		require.NoError(t, err, r.LogicalID)
		assert.InDelta(t, target, 100*p.Assumed.DynamoUtil, 1e-9, "%s: TargetValue %v%%, prices.json assumes %v", r.LogicalID, target, p.Assumed.DynamoUtil)
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

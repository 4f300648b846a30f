package faults

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/testkit/apitest/realservers"
)

func TestParse(t *testing.T) {
	p, err := Parse("seed=42,rate=0.2,kinds=throttle+lost-answer,storm=20s/3s,limit=7,report=/tmp/x.json")
	require.NoError(t, err)
	assert.Equal(t, Plan{Seed: 42, Rate: 0.2, Kinds: []Kind{Throttle, LostAnswer, Storm}, StormEvery: 20 * time.Second,
		StormFor: 3 * time.Second, Limit: 7, Report: "/tmp/x.json"}, p)

	p, err = Parse("seed=1")
	require.NoError(t, err)
	assert.NotContains(t, p.Kinds, Storm, "storms only when asked for")
	assert.Len(t, p.Kinds, len(All)-1)

	for _, bad := range []string{"seed", "seed=x", "rate=2", "kinds=flood", "storm=3s/20s", "storm=3s", "limit=-1", "colour=red"} {
		_, err := Parse(bad)
		assert.Error(t, err, bad)
	}
}

// TestTheScheduleIsTheSeeds: two transports with one seed fail the same
// calls the same way; another seed fails others.
func TestTheScheduleIsTheSeeds(t *testing.T) {
	schedule := func(seed uint64) []Kind {
		tr := New(Plan{Seed: seed, Rate: 0.3, Kinds: All[:5]}, nil)
		var out []Kind
		for range 200 {
			out = append(out, tr.pick(call{"dynamodb", "TransactWriteItems"}))
		}
		return out
	}
	assert.Equal(t, schedule(7), schedule(7))
	assert.NotEqual(t, schedule(7), schedule(8))
	faulted := 0
	for _, k := range schedule(7) {
		if k != "" {
			faulted++
		}
	}
	assert.InDelta(t, 60, faulted, 25, "about the rate")
}

func TestOnlyDataCallsFail(t *testing.T) {
	tr := New(Plan{Rate: 1, Kinds: All}, nil)
	for _, op := range []string{"CreateTable", "DescribeTable", "ListStreams"} {
		assert.Empty(t, tr.pick(call{"dynamodb", op}), op)
	}
	assert.Empty(t, tr.pick(call{"sqs", "CreateQueue"}))
	assert.Contains(t, []Kind{LostDelete, Reset}, tr.pick(call{"sqs", "DeleteMessage"}))
}

func clients(t *testing.T, p Plan) (*dynamodb.Client, *sqs.Client, *Transport) {
	ddb := realservers.Endpoint(t, "DYNAMODB_ENDPOINT", "infra/scripts/dynamodb-local.sh start")
	sq := realservers.Endpoint(t, "SQS_ENDPOINT", "infra/scripts/moto.sh start")
	tr := New(p, nil)
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
		HTTPClient: &http.Client{Transport: tr}}
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(ddb) }),
		sqs.NewFromConfig(cfg, func(o *sqs.Options) { o.BaseEndpoint = aws.String(sq) }), tr
}

func table(t *testing.T, ddb *dynamodb.Client) string {
	name := fmt.Sprintf("faults-%d", time.Now().UnixNano())
	_, err := ddb.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	require.NoError(t, err)
	t.Cleanup(func() {
		_, _ = ddb.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return name
}

func put(ddb *dynamodb.Client, ctx context.Context, tbl, pk string) error {
	_, err := ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tbl),
		Item:                map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}},
		ConditionExpression: aws.String("attribute_not_exists(pk)")})
	return err
}

func stored(t *testing.T, ddb *dynamodb.Client, tbl, pk string) bool {
	out, err := ddb.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(tbl), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}})
	require.NoError(t, err)
	return out.Item != nil
}

// TestDynamoFaultsAsTheSDKSeesThem: each kind, on every attempt of a
// conditional put, ends as the SDK reports it on AWS, and the item is
// written exactly when the kind lets the call through.
func TestDynamoFaultsAsTheSDKSeesThem(t *testing.T) {
	for _, c := range []struct {
		kind    Kind
		written bool
		is      func(error) bool
	}{
		{Throttle, false, func(err error) bool {
			var e *types.ProvisionedThroughputExceededException
			return errors.As(err, &e)
		}},
		{ServerError, false, func(err error) bool {
			var e *types.InternalServerError
			return errors.As(err, &e)
		}},
		{Reset, false, func(err error) bool { return assert.ErrorContains(t, err, "connection reset") }},
		// The SDK retried the committed put: its condition refuses the retry.
		{LostAnswer, true, func(err error) bool {
			var e *types.ConditionalCheckFailedException
			return errors.As(err, &e)
		}},
		{LateAnswer, true, func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }},
	} {
		t.Run(string(c.kind), func(t *testing.T) {
			limit := 0
			if c.kind == LostAnswer {
				limit = 1 // the retry goes through and meets the committed item
			}
			ddb, _, tr := clients(t, Plan{Rate: 1, Kinds: []Kind{c.kind}, Limit: limit})
			clean, _, _ := clients(t, Plan{})
			tbl := table(t, clean)
			wait := 30 * time.Second // past the SDK's backoff
			if c.kind == LateAnswer {
				wait = time.Second
			}
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			err := put(ddb, ctx, tbl, "a")
			require.Error(t, err)
			assert.True(t, c.is(err), "%v", err)
			assert.Equal(t, c.written, stored(t, clean, tbl, "a"))
			assert.Positive(t, tr.Counts()[c.kind])
		})
	}
}

// TestStormsThrottleEveryCall: within a storm every data call is
// throttled, past the SDK's retries; none in the first period.
func TestStormsThrottleEveryCall(t *testing.T) {
	ddb, _, tr := clients(t, Plan{Kinds: []Kind{Storm}, StormEvery: time.Hour, StormFor: time.Minute})
	tr.start = time.Now().Add(-time.Hour - time.Second) // in the second period's storm
	clean, _, _ := clients(t, Plan{})
	tbl := table(t, clean)
	var e *types.ProvisionedThroughputExceededException
	require.ErrorAs(t, put(ddb, context.Background(), tbl, "a"), &e)
	assert.Equal(t, 3, tr.Counts()[Storm], "the SDK's three attempts")

	calm := New(Plan{Kinds: []Kind{Storm}, StormEvery: time.Hour, StormFor: time.Minute}, nil)
	assert.Empty(t, calm.pick(call{"dynamodb", "PutItem"}), "a start-up meets no storm")
}

// TestARestartAddsToTheCounts: a transport started again on the same
// report (the gateway after kill -9) adds to the counts and draws anew.
func TestARestartAddsToTheCounts(t *testing.T) {
	report := t.TempDir() + "/faults.json"
	p := Plan{Seed: 3, Rate: 1, Kinds: []Kind{Throttle}, Report: report}
	first := New(p, nil)
	for range 4 {
		first.pick(call{"dynamodb", "PutItem"})
	}
	second := New(p, nil)
	second.pick(call{"dynamodb", "PutItem"})
	counts, err := ReadReport(report)
	require.NoError(t, err)
	assert.Equal(t, map[Kind]int{Throttle: 5}, counts)
}

func queueURL(t *testing.T, sq *sqs.Client) string {
	out, err := sq.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String(fmt.Sprintf("faults-%d", time.Now().UnixNano())),
		Attributes: map[string]string{"VisibilityTimeout": "3"}})
	require.NoError(t, err)
	return *out.QueueUrl
}

// receive drains the queue for d and returns the bodies received.
func receive(t *testing.T, sq *sqs.Client, url string, d time.Duration, del bool) []string {
	var bodies []string
	for end := time.Now().Add(d); time.Now().Before(end); {
		out, err := sq.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
		require.NoError(t, err)
		for _, m := range out.Messages {
			bodies = append(bodies, *m.Body)
			if del {
				_, err := sq.DeleteMessage(context.Background(), &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle})
				require.NoError(t, err)
			}
		}
	}
	return bodies
}

func TestSQSFaults(t *testing.T) {
	t.Run("duplicate", func(t *testing.T) {
		sq := sqsWith(t, Plan{Rate: 1, Kinds: []Kind{Duplicate}, Limit: 1})
		url := queueURL(t, sq.clean)
		_, err := sq.faulty.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("m")})
		require.NoError(t, err)
		assert.Equal(t, []string{"m", "m"}, receive(t, sq.clean, url, 3*time.Second, true))
	})
	t.Run("delayed", func(t *testing.T) {
		sq := sqsWith(t, Plan{Rate: 1, Kinds: []Kind{Delayed}, Limit: 1})
		url := queueURL(t, sq.clean)
		_, err := sq.faulty.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("m")})
		require.NoError(t, err)
		assert.Empty(t, receive(t, sq.clean, url, time.Second, true), "not visible at once")
		assert.Equal(t, []string{"m"}, receive(t, sq.clean, url, 6*time.Second, true))
	})
	t.Run("lost delete", func(t *testing.T) {
		sq := sqsWith(t, Plan{Rate: 1, Kinds: []Kind{LostDelete}, Limit: 1})
		url := queueURL(t, sq.clean)
		_, err := sq.clean.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("m")})
		require.NoError(t, err)
		first := receive(t, sq.faulty, url, time.Second, true)
		require.Equal(t, []string{"m"}, first, "received and (so the consumer thinks) deleted")
		assert.Equal(t, []string{"m"}, receive(t, sq.clean, url, 6*time.Second, true), "back after its visibility timeout")
	})
}

type sqsPair struct{ faulty, clean *sqs.Client }

func sqsWith(t *testing.T, p Plan) sqsPair {
	_, faulty, _ := clients(t, p)
	_, clean, _ := clients(t, Plan{})
	return sqsPair{faulty, clean}
}

// TestNoFunctionLinksTheFaults: no Lambda function's binary holds this
// package, so no deployed stack can inject faults, whatever its variables.
func TestNoFunctionLinksTheFaults(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../../../functions/...").Output()
	require.NoError(t, err)
	deps := strings.Fields(string(out))
	require.Greater(t, len(deps), 100, "go list found the functions' dependencies")
	assert.NotContains(t, deps, "github.com/paygate/paygate/infra/chaos/faults")
	for _, d := range deps {
		assert.False(t, strings.HasPrefix(d, "github.com/paygate/paygate/infra/"), "a function links %s", d)
	}
}

// An invocation still at work when its cut comes fails whole with ErrCut,
// whatever it reported, and is counted; one that ended first keeps its own
// result and is not; a spared function, or a plan without the kind, is
// never cut.
func TestCutEndsAnInvocationMidway(t *testing.T) {
	p, err := Parse("seed=3,rate=1,kinds=deadline,spare=PayoutsSenderFunction+X")
	require.NoError(t, err)
	assert.Equal(t, []string{"PayoutsSenderFunction", "X"}, p.Spare)
	tr := New(p, nil)
	ctx := context.Background()

	var sawDeadline bool
	err = tr.Cut(ctx, "WebhookSenderFunction", func(ctx context.Context) error {
		<-ctx.Done() // a batch longer than any cut
		_, sawDeadline = ctx.Deadline()
		return nil // it reports success: a timed-out invocation does not get to
	})
	assert.ErrorIs(t, err, ErrCut)
	assert.True(t, sawDeadline)
	assert.Equal(t, 1, tr.Counts()[Deadline])

	mine := errors.New("mine")
	assert.ErrorIs(t, tr.Cut(ctx, "WebhookSenderFunction", func(context.Context) error { return mine }), mine,
		"done before the cut: its own result")
	assert.Equal(t, 1, tr.Counts()[Deadline], "and no cut counted")

	assert.NoError(t, tr.Cut(ctx, "PayoutsSenderFunction", func(ctx context.Context) error {
		_, has := ctx.Deadline()
		assert.False(t, has, "spared")
		return nil
	}))

	none := New(Plan{Seed: 3, Rate: 1, Kinds: []Kind{Throttle}}, nil)
	assert.NoError(t, none.Cut(ctx, "WebhookSenderFunction", func(ctx context.Context) error {
		_, has := ctx.Deadline()
		assert.False(t, has, "no deadline kind in the plan")
		return nil
	}))
}

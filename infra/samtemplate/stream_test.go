package samtemplate

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/store"
)

// Bounds of a stream consumer's event source mapping: retries and record age
// must be finite (-1, the default, retries a failing batch until the record
// leaves the stream, blocking its shard for up to a day).
const (
	maxStreamRetries   = 10000     // MaximumRetryAttempts' own maximum
	maxStreamRecordAge = 24 * 3600 // DynamoDB Streams keep records 24 h
)

// checkStream holds a stream consumer's template block to the rules, and
// returns what breaks them: one DynamoDB event on its table's stream (an
// event source mapping of the function's alias, not a SAM event) from
// TRIM_HORIZON, partial batch responses, bisection, bounded retries and
// record age, failures to its DLQ (an encrypted queue kept 14 days, with a
// depth alarm, dead-lettering nowhere itself).
func checkStream(tpl *Template, f Function, g registry.Group) []string {
	var errs []string
	fail := func(format string, args ...any) {
		errs = append(errs, f.LogicalID+": "+sprintf(format, args...))
	}
	if len(f.Events) != 1 || f.Events[0].Type != "DynamoDB" {
		fail("want exactly one event, of Type DynamoDB")
		return errs
	}
	p := f.Events[0].Properties
	if m, ok := tpl.Resource(f.Events[0].Resource); !ok || m.Type != "AWS::Lambda::EventSourceMapping" {
		fail("a SAM DynamoDB event: SAM attaches AWSLambdaDynamoDBExecutionRole (stream reads on \"*\"); declare an AWS::Lambda::EventSourceMapping")
	} else if got := Raw(m.Properties["FunctionName"]); got != "!Ref "+f.LogicalID+".Alias" {
		fail("the mapping invokes %s, want !Ref %s.Alias (the version the deployment shifted to)", got, f.LogicalID)
	}
	if got, want := Raw(p["Stream"]), "!GetAtt "+TableID(g.Streams)+".StreamArn"; got != want {
		fail("Stream %s, want %s", got, want)
	}
	if got := Raw(p["StartingPosition"]); got != "TRIM_HORIZON" {
		fail("StartingPosition %s, want TRIM_HORIZON (nothing written before the mapping exists is skipped)", got)
	}
	if got := strs(p["FunctionResponseTypes"]); !slices.Equal(got, []string{"ReportBatchItemFailures"}) {
		fail("FunctionResponseTypes %v, want [ReportBatchItemFailures]", got)
	}
	if got := Raw(p["BisectBatchOnFunctionError"]); got != "true" {
		fail("BisectBatchOnFunctionError %s, want true", got)
	}
	if n, ok := intOf(p["MaximumRetryAttempts"]); !ok || n < 0 || n > maxStreamRetries {
		fail("MaximumRetryAttempts %s, want a bound in 0..%d", Raw(p["MaximumRetryAttempts"]), maxStreamRetries)
	}
	if n, ok := intOf(p["MaximumRecordAgeInSeconds"]); !ok || n < 60 || n > maxStreamRecordAge {
		fail("MaximumRecordAgeInSeconds %s, want a bound in 60..%d", Raw(p["MaximumRecordAgeInSeconds"]), maxStreamRecordAge)
	}
	dlq := StreamDLQ(g)
	onFailure := mapOf(mapOf(p["DestinationConfig"])["OnFailure"])
	if got, want := Raw(onFailure["Destination"]), "!GetAtt "+dlq+".Arn"; got != want {
		fail("DestinationConfig.OnFailure.Destination %s, want %s", got, want)
	}
	if typ := Raw(onFailure["Type"]); typ != "" && typ != "SQS" {
		fail("DestinationConfig.OnFailure.Type %s, want SQS or none", typ)
	}
	var q *Queue
	for _, x := range tpl.Queues() {
		if x.LogicalID == dlq {
			q = &x
		}
	}
	switch {
	case q == nil:
		fail("no SQS queue %s for its failures", dlq)
	default:
		r, _ := tpl.Resource(dlq)
		if Raw(r.Properties["SqsManagedSseEnabled"]) != "true" {
			fail("%s: SqsManagedSseEnabled is not true", dlq)
		}
		if q.RetentionSeconds != 14*24*3600 {
			fail("%s: retention %d s, want 14 days", dlq, q.RetentionSeconds)
		}
		if q.DeadLetter != "" {
			fail("%s dead-letters to %s itself", dlq, q.DeadLetter)
		}
		if !hasDepthAlarm(tpl, dlq) {
			fail("%s: no alarm on ApproximateNumberOfMessagesVisible > 0", dlq)
		}
		if want := "!Sub paygate-${Environment}-" + g.Dir + "-dlq"; q.Name != want {
			fail("%s: QueueName %s, want %s", dlq, q.Name, want)
		}
	}
	if want := wantGrants(g); !reflect.DeepEqual(f.Grants, want) {
		fail("grants %+v, want %+v", f.Grants, want)
	}
	return errs
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// Every stream consumer of template.yaml keeps the rules of checkStream; a
// fixture shows the rules pass on a correct block (the one the README and
// the report hand over) and fail on each broken property.
func TestStreamConsumersReadTheirStream(t *testing.T) {
	tpl := load(t)
	for _, g := range declared() {
		if g.Kind() != "stream" {
			continue
		}
		f, ok := tpl.Function(g.Function)
		if !ok {
			continue // TestFunctionsAreTheDeclaredGroups reports it
		}
		for _, e := range checkStream(tpl, f, g) {
			t.Error(e)
		}
	}

	fixture, err := Parse([]byte(streamFixture))
	if err != nil {
		t.Fatal(err)
	}
	f, _ := fixture.Function(fixtureGroup.Function)
	if errs := checkStream(fixture, f, fixtureGroup); len(errs) > 0 {
		t.Errorf("the fixture breaks the rules: %v", errs)
	}
	for name, edit := range map[string][2]string{
		"latest":             {"StartingPosition: TRIM_HORIZON", "StartingPosition: LATEST"},
		"no partial batches": {"FunctionResponseTypes: [ReportBatchItemFailures]", "FunctionResponseTypes: []"},
		"no bisection":       {"BisectBatchOnFunctionError: true", "BisectBatchOnFunctionError: false"},
		"endless retries":    {"MaximumRetryAttempts: 10", "MaximumRetryAttempts: -1"},
		"endless record age": {"MaximumRecordAgeInSeconds: 21600", "MaximumRecordAgeInSeconds: -1"},
		"no destination":     {"Destination: !GetAtt WebhookPublisherDLQ.Arn", "Destination: !GetAtt WebhooksDLQ.Arn"},
		"another stream":     {"EventSourceArn: !GetAtt EventsTable.StreamArn", "EventSourceArn: !GetAtt OrdersTable.StreamArn"},
		"wide stream read":   {"Resource: !GetAtt EventsTable.StreamArn", "Resource: !GetAtt OrdersTable.StreamArn"},
		"no DLQ send":        {"Resource: !GetAtt WebhookPublisherDLQ.Arn", "Resource: !GetAtt WebhooksQueue.Arn"},
		"DLQ unencrypted":    {"SqsManagedSseEnabled: true # dlq", "SqsManagedSseEnabled: false"},
		"no alarm":           {"Value: !GetAtt WebhookPublisherDLQ.QueueName", "Value: !GetAtt WebhooksDLQ.QueueName"},
		"second event":       {"      Policies:\n", "      Events:\n        Tick: {Type: Schedule, Properties: {Schedule: rate(1 minute)}}\n      Policies:\n"},
		"mapping of $LATEST": {"FunctionName: !Ref WebhookPublisherFunction.Alias", "FunctionName: !Ref WebhookPublisherFunction"},
	} {
		t.Run(name, func(t *testing.T) {
			if !strings.Contains(streamFixture, edit[0]) {
				t.Fatalf("the fixture has no %q", edit[0])
			}
			broken, err := Parse([]byte(strings.Replace(streamFixture, edit[0], edit[1], 1)))
			if err != nil {
				t.Fatal(err)
			}
			f, _ := broken.Function(fixtureGroup.Function)
			if errs := checkStream(broken, f, fixtureGroup); len(errs) == 0 {
				t.Error("the broken block passes the rules")
			}
		})
	}
}

// fixtureGroup stands for the webhook publisher until it is declared.
var fixtureGroup = registry.Group{
	Function: "WebhookPublisherFunction", Dir: "webhook-publisher", Streams: store.TableEvents,
	Tables: []registry.Table{{Name: store.TableAccounts, Actions: []string{"Query"}}},
	Queues: []registry.Queue{{Name: "webhooks", Access: registry.Send}},
}

// streamFixture is a stream consumer's template block (with the resources
// it names): the block to paste for a stream group.
const streamFixture = `
Transform: AWS::Serverless-2016-10-31
Resources:
  AccountsTable:
    Type: AWS::DynamoDB::Table
  EventsTable:
    Type: AWS::DynamoDB::Table
  OrdersTable:
    Type: AWS::DynamoDB::Table
  WebhooksQueue:
    Type: AWS::SQS::Queue
  WebhooksDLQ:
    Type: AWS::SQS::Queue
  WebhookPublisherFunction:
    Type: AWS::Serverless::Function
    Metadata:
      BuildMethod: go1.x
    Properties:
      FunctionName: !Sub paygate-${Environment}-webhook-publisher
      Description: Events stream consumer - one webhooks queue message per event and subscribed endpoint.
      CodeUri: functions/webhook-publisher
      Timeout: 30
      Policies:
        - Statement:
            - Effect: Allow
              Action: [dynamodb:Query]
              Resource: !GetAtt AccountsTable.Arn
        - Statement:
            - Effect: Allow
              Action: [sqs:SendMessage]
              Resource: !GetAtt WebhooksQueue.Arn
        # Derived from Streams (samtemplate.StreamGrants): read on the
        # events stream only, and send on the DLQ its failures go to.
        - Statement:
            - Effect: Allow
              Action: [dynamodb:DescribeStream, dynamodb:GetRecords, dynamodb:GetShardIterator, dynamodb:ListStreams]
              Resource: !GetAtt EventsTable.StreamArn
        - Statement:
            - Effect: Allow
              Action: [sqs:SendMessage]
              Resource: !GetAtt WebhookPublisherDLQ.Arn

  # The mapping of the function's alias, not a SAM DynamoDB event (SAM would
  # attach AWSLambdaDynamoDBExecutionRole: stream reads on "*").
  WebhookPublisherFunctionEvents:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      FunctionName: !Ref WebhookPublisherFunction.Alias
      EventSourceArn: !GetAtt EventsTable.StreamArn
      StartingPosition: TRIM_HORIZON
      BatchSize: 100
      FunctionResponseTypes: [ReportBatchItemFailures]
      BisectBatchOnFunctionError: true
      MaximumRetryAttempts: 10
      MaximumRecordAgeInSeconds: 21600
      DestinationConfig:
        OnFailure:
          Destination: !GetAtt WebhookPublisherDLQ.Arn

  WebhookPublisherDLQ:
    Type: AWS::SQS::Queue
    DeletionPolicy: Delete
    UpdateReplacePolicy: Delete
    Properties:
      QueueName: !Sub paygate-${Environment}-webhook-publisher-dlq
      MessageRetentionPeriod: 1209600
      SqsManagedSseEnabled: true # dlq

  WebhookPublisherDLQAlarm:
    Type: AWS::CloudWatch::Alarm
    Properties:
      AlarmName: !Sub paygate-${Environment}-webhook-publisher-dlq-not-empty
      AlarmDescription: Event records the publisher gave up on (their stream positions) wait in the DLQ.
      Namespace: AWS/SQS
      MetricName: ApproximateNumberOfMessagesVisible
      Dimensions:
        - Name: QueueName
          Value: !GetAtt WebhookPublisherDLQ.QueueName
      Statistic: Maximum
      Period: 60
      EvaluationPeriods: 1
      Threshold: 0
      ComparisonOperator: GreaterThanThreshold
      TreatMissingData: notBreaching
      AlarmActions: !If [HasAlarmTopic, [!Ref AlarmTopicArn], !Ref AWS::NoValue]
`

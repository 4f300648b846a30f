package samtemplate

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// No wildcard on the data plane: every permission of every function's role
// names the exact tables, streams, queues, parameters and keys it acts on.
// checkWildcards reads what each role will hold: its Policies (inline
// statements, and the AWS::IAM::ManagedPolicy resources of the template they
// refer to), and what SAM adds to a role it generates: the managed policies
// of the function's settings (implicitPolicies) and of its SAM events. A
// SAM SQS, DynamoDB or Kinesis event attaches a managed policy that reads
// every queue or stream (Resource "*"), so queues and streams are event
// source mappings of the function's alias, declared as resources. SAM's
// policy templates are refused too: what they expand to is SAM's, not
// written here (DynamoDBStreamReadPolicy grants ListStreams on
// table/<name>/stream/*).
//
// A KMS key policy's Resource "*" is the key itself (a key policy applies
// to its own key only), so key policies are not read here; kms_test.go holds
// the card key's policy to the functions that take cards.

// allowedOnAnyResource are the actions that may keep Resource "*": AWS does
// not scope them to a resource (CloudWatch Logs' writes of the Lambda
// runtime are on the function's log group, which the managed policy does
// not name; X-Ray's and CloudWatch's metric writes take no resource).
var allowedOnAnyResource = map[string]bool{
	"logs:CreateLogGroup":                true,
	"logs:CreateLogStream":               true,
	"logs:PutLogEvents":                  true,
	"xray:PutTraceSegments":              true,
	"xray:PutTelemetryRecords":           true,
	"xray:GetSamplingRules":              true,
	"xray:GetSamplingTargets":            true,
	"xray:GetSamplingStatisticSummaries": true,
	"cloudwatch:PutMetricData":           true,
}

// implicitPolicies are the AWS managed policies SAM attaches to every role
// it generates (AWSLambdaBasicExecutionRole) and to a traced function's
// (AWSXrayWriteOnlyAccess, Tracing: Active), with their statements as AWS
// publishes them.
var implicitPolicies = map[string][]string{
	"AWSLambdaBasicExecutionRole": {"logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"},
	"AWSXrayWriteOnlyAccess": {"xray:PutTraceSegments", "xray:PutTelemetryRecords", "xray:GetSamplingRules",
		"xray:GetSamplingTargets", "xray:GetSamplingStatisticSummaries"},
}

// eventPolicies are the managed policies SAM attaches for a SAM event of
// these types: each reads every queue or stream (Resource "*").
var eventPolicies = map[string]string{
	"SQS":              "AWSLambdaSQSQueueExecutionRole",
	"DynamoDB":         "AWSLambdaDynamoDBExecutionRole",
	"Kinesis":          "AWSLambdaKinesisExecutionRole",
	"MSK":              "AWSLambdaMSKExecutionRole",
	"MQ":               "(MQ event source policy)",
	"SelfManagedKafka": "(Kafka event source policy)",
	"DocumentDB":       "(DocumentDB event source policy)",
}

// dataPlane reports whether action reads or writes data: DynamoDB, SQS,
// Kinesis, KMS's cryptographic operations, SSM's parameter reads, Secrets
// Manager's values, S3's objects.
func dataPlane(action string) bool {
	a := strings.ToLower(action)
	for _, p := range []string{"dynamodb:", "sqs:", "kinesis:", "kms:decrypt", "kms:encrypt", "kms:generatedatakey",
		"kms:reencrypt", "ssm:getparameter", "secretsmanager:getsecretvalue", "s3:getobject", "s3:putobject", "s3:deleteobject"} {
		if strings.HasPrefix(a, p) {
			return true
		}
	}
	return a == "*" || strings.HasSuffix(a, ":*") && (strings.HasPrefix(a, "kms:") || strings.HasPrefix(a, "ssm:") || strings.HasPrefix(a, "s3:"))
}

func checkWildcards(tpl *Template) []string {
	var errs []string
	for _, f := range tpl.Functions() {
		fail := func(format string, args ...any) { errs = append(errs, f.LogicalID+": "+fmt.Sprintf(format, args...)) }
		if _, own := f.Properties["Role"]; own {
			fail("a Role of its own: this check reads the role SAM generates from Policies")
		}
		for _, e := range f.Events {
			if p, ok := eventPolicies[e.Type]; ok && e.Resource == "" {
				fail("SAM %s event %s: SAM attaches %s, reads of every queue or stream (Resource \"*\"); declare an AWS::Lambda::EventSourceMapping of !Ref %s.Alias instead", e.Type, e.Name, p, f.LogicalID)
			}
		}
		for _, actions := range implicitPolicies {
			for _, a := range actions {
				if !allowedOnAnyResource[a] {
					fail("SAM's managed policy grants %s on \"*\"", a)
				}
			}
		}
		for _, item := range asList(f.Properties["Policies"]) {
			switch x := item.(type) {
			case string:
				fail("managed policy %s: its statements are not in the template; write them", x)
			case map[string]any:
				if st, ok := x["Statement"]; ok {
					errs = append(errs, checkStatements(f.LogicalID, st)...)
					continue
				}
				if name, arg, ok := intrinsic(x); ok {
					r, found := tpl.Resource(RefTarget(x))
					if name != "Ref" || !found || r.Type != "AWS::IAM::ManagedPolicy" {
						fail("policy %s (%v): not a managed policy of the template", Raw(x), arg)
						continue
					}
					errs = append(errs, checkStatements(f.LogicalID+" ("+r.LogicalID+")", mapOf(r.Properties["PolicyDocument"])["Statement"])...)
					continue
				}
				for tmpl := range x {
					fail("SAM policy template %s: what it grants is SAM's expansion, not named here; write the statement", tmpl)
				}
			default:
				fail("policy %s: not a statement or a managed policy of the template", Raw(x))
			}
		}
	}
	for _, typ := range []string{"AWS::IAM::ManagedPolicy", "AWS::IAM::Policy", "AWS::IAM::Role"} {
		for _, r := range tpl.ResourcesOfType(typ) {
			errs = append(errs, checkStatements(r.LogicalID, mapOf(r.Properties["PolicyDocument"])["Statement"])...)
			for _, p := range asList(r.Properties["Policies"]) {
				errs = append(errs, checkStatements(r.LogicalID, mapOf(mapOf(p)["PolicyDocument"])["Statement"])...)
			}
			for _, arn := range asList(r.Properties["ManagedPolicyArns"]) {
				errs = append(errs, fmt.Sprintf("%s: managed policy %s: its statements are not in the template", r.LogicalID, Raw(arn)))
			}
		}
	}
	sort.Strings(errs)
	return errs
}

// checkStatements refuses, in each Allow statement, a wildcard of actions
// (sqs:*, dynamodb:Get*), a data-plane action on a wildcard resource ("*",
// or a name or ARN with a "*" in it), any other action on one unless
// allowedOnAnyResource lists it, and NotAction or NotResource.
func checkStatements(who string, v any) []string {
	var errs []string
	for _, s := range asList(v) {
		st := mapOf(s)
		if Raw(st["Effect"]) == "Deny" {
			continue
		}
		if _, ok := st["NotAction"]; ok {
			errs = append(errs, who+": NotAction grants everything else")
		}
		if _, ok := st["NotResource"]; ok {
			errs = append(errs, who+": NotResource grants every other resource")
		}
		actions := strs(st["Action"])
		for _, a := range actions {
			if strings.Contains(a, "*") {
				errs = append(errs, fmt.Sprintf("%s: action %s: a wildcard of actions (%s on one queue can delete it); list the calls", who, a, a))
			}
		}
		for _, r := range asList(st["Resource"]) {
			wild := wildcardResource(r)
			if wild == "" {
				continue
			}
			for _, a := range actions {
				switch {
				case strings.Contains(a, "*"):
					// reported above
				case dataPlane(a):
					errs = append(errs, fmt.Sprintf("%s: %s on %s: a data-plane action on a wildcard; name the table, stream, queue, parameter or key", who, a, wild))
				case !allowedOnAnyResource[a]:
					errs = append(errs, fmt.Sprintf("%s: %s on %s: not an action AWS leaves unscoped (allowedOnAnyResource)", who, a, wild))
				}
			}
		}
	}
	return errs
}

// wildcardResource returns r as written when it names a wildcard ("*", or
// a literal or !Sub with a "*"), "" when it names one resource (a !Ref or
// !GetAtt, or a literal or !Sub without "*").
func wildcardResource(r any) string {
	switch x := r.(type) {
	case string:
		if strings.Contains(x, "*") {
			return x
		}
		return ""
	}
	name, arg, ok := intrinsic(r)
	if !ok {
		return Raw(r)
	}
	switch name {
	case "Ref", "Fn::GetAtt":
		return ""
	case "Fn::Sub":
		s, _ := arg.(string)
		if list, isList := arg.([]any); isList && len(list) > 0 {
			s, _ = list[0].(string)
		}
		if strings.Contains(s, "*") {
			return Raw(r)
		}
		return ""
	}
	if strings.Contains(Raw(r), "*") {
		return Raw(r)
	}
	return ""
}

// TestNoWildcardOnDataPlane: no role of template.yaml's stacks grants a
// data-plane action on a wildcard, and "*" only for the listed actions AWS
// does not scope.
func TestNoWildcardOnDataPlane(t *testing.T) {
	for _, e := range checkWildcards(load(t)) {
		t.Error(e)
	}
}

const wildcardFixture = `
Transform: AWS::Serverless-2016-10-31
Globals:
  Function:
    Tracing: Active
Resources:
  ATable:
    Type: AWS::DynamoDB::Table
  Q:
    Type: AWS::SQS::Queue
  SecretPolicy:
    Type: AWS::IAM::ManagedPolicy
    Properties:
      PolicyDocument:
        Statement:
          - Effect: Allow
            Action: [ssm:GetParameter]
            Resource: !Sub arn:${AWS::Partition}:ssm:${AWS::Region}:${AWS::AccountId}:parameter/x/${Environment}/secret
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: functions/fn
      Policies:
        - Statement:
            - Effect: Allow
              Action: [dynamodb:GetItem, dynamodb:Query]
              Resource: !GetAtt ATable.Arn
            - Effect: Allow
              Action: [sqs:ReceiveMessage, sqs:DeleteMessage]
              Resource: !GetAtt Q.Arn
            - Effect: Allow
              Action: [cloudwatch:PutMetricData]
              Resource: "*"
        - !Ref SecretPolicy
  FnQueue:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      FunctionName: !Ref Fn.Alias
      EventSourceArn: !GetAtt Q.Arn
`

// TestWildcardCheckCatchesEachKind: the fixture passes; each wildcard the
// check exists for fails it.
func TestWildcardCheckCatchesEachKind(t *testing.T) {
	tpl, err := Parse([]byte(wildcardFixture))
	if err != nil {
		t.Fatal(err)
	}
	if errs := checkWildcards(tpl); len(errs) > 0 {
		t.Fatalf("the fixture fails: %v", errs)
	}
	for name, edit := range map[string][2]string{
		"table on *":           {"Resource: !GetAtt ATable.Arn", `Resource: "*"`},
		"every index":          {"Resource: !GetAtt ATable.Arn", `Resource: !Sub "${ATable.Arn}/index/*"`},
		"every stream":         {"Resource: !GetAtt ATable.Arn", `Resource: !Sub "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/${ATable}/stream/*"`},
		"every queue":          {"Resource: !GetAtt Q.Arn", `Resource: !Sub "arn:${AWS::Partition}:sqs:${AWS::Region}:${AWS::AccountId}:*"`},
		"action wildcard":      {"[sqs:ReceiveMessage, sqs:DeleteMessage]", `["sqs:*"]`},
		"every key":            {"Action: [cloudwatch:PutMetricData]", "Action: [kms:Decrypt]"},
		"every parameter":      {"parameter/x/${Environment}/secret", "parameter/x/*"},
		"unlisted action on *": {"Action: [cloudwatch:PutMetricData]", "Action: [lambda:InvokeFunction]"},
		"SAM SQS event":        {"  FnQueue:\n    Type: AWS::Lambda::EventSourceMapping\n    Properties:\n      FunctionName: !Ref Fn.Alias\n      EventSourceArn: !GetAtt Q.Arn\n", ""},
		"SAM policy template":  {"        - !Ref SecretPolicy", "        - SQSPollerPolicy: {QueueName: !GetAtt Q.QueueName}"},
		"managed policy":       {"        - !Ref SecretPolicy", "        - AmazonDynamoDBReadOnlyAccess"},
		"NotResource":          {"              Resource: !GetAtt Q.Arn", "              NotResource: !GetAtt Q.Arn"},
		"SAM stream event":     {"      Policies:\n", "      Events:\n        S: {Type: DynamoDB, Properties: {Stream: !GetAtt ATable.StreamArn, StartingPosition: LATEST}}\n      Policies:\n"},
	} {
		t.Run(name, func(t *testing.T) {
			text := wildcardFixture
			if name == "SAM SQS event" {
				text = strings.Replace(text, "      Policies:\n", "      Events:\n        Q: {Type: SQS, Properties: {Queue: !GetAtt Q.Arn}}\n      Policies:\n", 1)
			}
			if !strings.Contains(text, edit[0]) {
				t.Fatalf("the fixture has no %q", edit[0])
			}
			broken, err := Parse([]byte(strings.Replace(text, edit[0], edit[1], 1)))
			if err != nil {
				t.Fatal(err)
			}
			if errs := checkWildcards(broken); len(errs) == 0 {
				t.Error("the check passes it")
			} else {
				t.Log(errs)
			}
		})
	}
}

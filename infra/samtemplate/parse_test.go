package samtemplate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/awslabs/goformation/v7/intrinsics"
)

const fixture = `
Transform: AWS::Serverless-2016-10-31
Globals:
  Function:
    Runtime: provided.al2023
    Timeout: 10
    Architectures: [arm64]
    Environment:
      Variables:
        STORE: dynamodb
        TABLE_A: !Ref ATable
Resources:
  Api:
    Type: AWS::Serverless::HttpApi
  ATable:
    Type: AWS::DynamoDB::Table
  Q:
    Type: AWS::SQS::Queue
    Properties:
      QueueName: !Sub "x-${Env}-q"
      VisibilityTimeout: 60
      RedrivePolicy: {deadLetterTargetArn: {"Fn::GetAtt": [QDLQ, Arn]}, maxReceiveCount: 5}
  QDLQ:
    Type: AWS::SQS::Queue
  Fn:
    Type: AWS::Serverless::Function
    Metadata: {BuildMethod: go1.x}
    Properties:
      CodeUri: functions/fn
      Timeout: 20
      Environment:
        Variables:
          TABLE_A: literal
          EXTRA: !GetAtt ATable.StreamArn
          ARN: !Sub "${ATable.Arn}/index/*"
      Policies:
        - DynamoDBReadPolicy: {TableName: !Ref ATable}
        - AWSLambdaBasicExecutionRole
        - Statement:
            - Effect: Allow
              Action: [sqs:SendMessage, sqs:GetQueueUrl]
              Resource: [!GetAtt Q.Arn, !Sub "${ATable.Arn}/index/*", "*"]
      Events:
        B: {Type: HttpApi, Properties: {ApiId: !Ref Api, Path: /b, Method: post}}
        A: {Type: HttpApi, Properties: {ApiId: {Ref: Api}, Path: /a, Method: GET}}
        Any: {Type: HttpApi, Properties: {ApiId: !Ref Api, Path: /any}}
        Queue: {Type: SQS, Properties: {Queue: !GetAtt Q.Arn}}
        Stream: {Type: DynamoDB, Properties: {Stream: !GetAtt [ATable, StreamArn]}}
`

func TestParseFunction(t *testing.T) {
	tpl, err := Parse([]byte(fixture))
	if err != nil {
		t.Fatal(err)
	}
	f, ok := tpl.Function("Fn")
	if !ok {
		t.Fatal("Fn not found")
	}
	if f.CodeURI != "functions/fn" || f.Runtime != "provided.al2023" || f.BuildMethod != "go1.x" {
		t.Errorf("CodeURI, Runtime, BuildMethod = %q, %q, %q", f.CodeURI, f.Runtime, f.BuildMethod)
	}
	if f.Timeout != 20 || f.MemorySize != defaultMemory {
		t.Errorf("Timeout, MemorySize = %d, %d; want the function's 20 and the default", f.Timeout, f.MemorySize)
	}
	if !reflect.DeepEqual(f.Architectures, []string{"arm64"}) {
		t.Errorf("Architectures = %v", f.Architectures)
	}
	wantEnv := map[string]string{
		"STORE":   "dynamodb",
		"TABLE_A": "literal", // the function's value wins over Globals
		"EXTRA":   "!GetAtt ATable.StreamArn",
		"ARN":     "!Sub ${ATable.Arn}/index/*",
	}
	if !reflect.DeepEqual(f.Env, wantEnv) {
		t.Errorf("Env = %v, want %v", f.Env, wantEnv)
	}
	wantRoutes := []Route{{"GET", "/a", "Fn"}, {"ANY", "/any", "Fn"}, {"POST", "/b", "Fn"}}
	if !reflect.DeepEqual(f.Routes, wantRoutes) || !reflect.DeepEqual(tpl.Routes(), wantRoutes) {
		t.Errorf("Routes = %v / %v, want %v", f.Routes, tpl.Routes(), wantRoutes)
	}
	sources := map[string]string{}
	for _, e := range f.Events {
		sources[e.Name] = e.Type + ":" + e.Source
	}
	wantSources := map[string]string{"A": "HttpApi:Api", "B": "HttpApi:Api", "Any": "HttpApi:Api", "Queue": "SQS:Q", "Stream": "DynamoDB:ATable"}
	if !reflect.DeepEqual(sources, wantSources) {
		t.Errorf("event sources = %v, want %v", sources, wantSources)
	}
	wantGrants := []Grant{
		{Policy: "DynamoDBReadPolicy", Resources: []string{"ATable"}},
		{Policy: "AWSLambdaBasicExecutionRole"},
		{Policy: "Statement", Actions: []string{"sqs:SendMessage", "sqs:GetQueueUrl"}, Resources: []string{"Q", "ATable", "*"}},
	}
	if !reflect.DeepEqual(f.Grants, wantGrants) {
		t.Errorf("Grants = %+v, want %+v", f.Grants, wantGrants)
	}
}

func TestParseQueuesAndTables(t *testing.T) {
	tpl, err := Parse([]byte(fixture))
	if err != nil {
		t.Fatal(err)
	}
	if got := tpl.Tables(); !reflect.DeepEqual(got, []string{"ATable"}) {
		t.Errorf("Tables = %v", got)
	}
	want := []Queue{
		{LogicalID: "Q", Name: "!Sub x-${Env}-q", DeadLetter: "QDLQ", MaxReceiveCount: 5, VisibilityTimeout: 60, RetentionSeconds: defaultRetention},
		{LogicalID: "QDLQ", VisibilityTimeout: defaultVisibility, RetentionSeconds: defaultRetention},
	}
	if got := tpl.Queues(); !reflect.DeepEqual(got, want) {
		t.Errorf("Queues = %+v, want %+v", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	cases := map[string]string{
		"duplicate logical id":  "Resources:\n  A: {Type: AWS::SQS::Queue}\n  A: {Type: AWS::SNS::Topic}\n",
		"no resources":          "Transform: AWS::Serverless-2016-10-31\n",
		"resource without type": "Resources:\n  A: {Properties: {}}\n",
		"not a mapping":         "- a\n- b\n",
		"bad yaml":              "Resources: [\n",
	}
	for name, src := range cases {
		if _, err := Parse([]byte(src)); err == nil {
			t.Errorf("%s: Parse succeeded, want an error", name)
		}
	}
}

func TestRaw(t *testing.T) {
	cases := []struct {
		src, want string
	}{
		{"v: plain", "plain"},
		{"v: 42", "42"},
		{"v: true", "true"},
		{"v: !Ref X", "!Ref X"},
		{"v: {Ref: X}", "!Ref X"},
		{"v: !GetAtt X.Arn", "!GetAtt X.Arn"},
		{"v: {Fn::GetAtt: [X, Arn]}", "!GetAtt X.Arn"},
		{"v: !Sub a-${B}", "!Sub a-${B}"},
		{"v: !Ref AWS::Region", "!Ref AWS::Region"},
		{"v: !If [C, a, b]", `!If ["C","a","b"]`},
		{"v: !Join ['', [a, !Ref B]]", `!Join ["",["a",{"Ref":"B"}]]`},
	}
	for _, c := range cases {
		v := decodeValue(t, c.src)
		if got := Raw(v); got != c.want {
			t.Errorf("Raw(%s) = %q, want %q", c.src, got, c.want)
		}
	}
}

// decodeValue decodes the value of key v in src the way Parse reads a
// template (goformation's tag processing, intrinsics kept).
func decodeValue(t *testing.T, src string) any {
	t.Helper()
	js, err := intrinsics.ProcessYAML([]byte(src), &intrinsics.ProcessorOptions{NoProcess: true})
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	var v map[string]any
	if err := json.Unmarshal(js, &v); err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return v["v"]
}

func TestRefs(t *testing.T) {
	v := decodeValue(t, `v: [!Ref A, !GetAtt B.Arn, !Sub "${C}-${D.Name}-${!Literal}-${AWS::Region}", {"Fn::Sub": ["${E}", {F: !Ref G}]}]`)
	want := []string{"A", "AWS::Region", "B", "C", "D", "E", "G"}
	if got := refs(v); !reflect.DeepEqual(got, want) {
		t.Errorf("refs = %v, want %v", got, want)
	}
}

func TestMergeGlobals(t *testing.T) {
	global := decodeValue(t, "v: {Timeout: 10, Layers: [a], Environment: {Variables: {A: '1', B: !Ref X}}, Role: !GetAtt R.Arn}")
	local := decodeValue(t, "v: {Timeout: 30, Layers: [b], Environment: {Variables: {B: '2', C: '3'}}, Role: {Name: r}}")
	want := decodeValue(t, "v: {Timeout: 30, Layers: [a, b], Environment: {Variables: {A: '1', B: '2', C: '3'}}, Role: {Name: r}}")
	if got := merge(global, local); !reflect.DeepEqual(got, want) {
		t.Errorf("merge = %v, want %v", got, want)
	}
}

func TestFind(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Find(deep); err == nil {
		t.Fatal("Find succeeded with no template")
	}
	want := filepath.Join(root, FileName)
	if err := os.WriteFile(want, []byte(fixture), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Find(deep)
	if err != nil || got != want {
		t.Fatalf("Find = %q, %v; want %q", got, err, want)
	}
	tpl, err := LoadFrom(deep)
	if err != nil {
		t.Fatal(err)
	}
	if tpl.Path != want {
		t.Errorf("LoadFrom path = %q, want %q", tpl.Path, want)
	}
}

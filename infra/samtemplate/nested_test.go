package samtemplate

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const nestedParent = `
Transform: AWS::Serverless-2016-10-31
Parameters:
  Environment: {Type: String}
Resources:
  HttpApi:
    Type: AWS::ApiGatewayV2::Api
    Properties: {ProtocolType: HTTP}
  ATable:
    Type: AWS::DynamoDB::Table
  Key:
    Type: AWS::KMS::Key
    Properties:
      KeyPolicy:
        Statement:
          - Principal: {AWS: !GetAtt AreaStack.Outputs.FnRoleArn}
  AreaStack:
    Type: AWS::Serverless::Application
    Properties:
      Location: stacks/area.yaml
      Parameters:
        Environment: !Ref Environment
        HttpApi: !Ref HttpApi
        ATable: !Ref ATable
        ATableArn: !GetAtt ATable.Arn
`

const nestedArea = `
Transform: AWS::Serverless-2016-10-31
Parameters:
  Environment: {Type: String}
  HttpApi: {Type: String}
  ATable: {Type: String}
  ATableArn: {Type: String}
  Optional: {Type: String, Default: ""}
Globals:
  Function:
    Timeout: 10
    Environment:
      Variables:
        TABLE_A: !Ref ATable
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: ../functions/fn
      FunctionName: !Sub x-${Environment}-fn
      Policies:
        - Statement:
            - Effect: Allow
              Action: [dynamodb:Query]
              Resource: [!Ref ATableArn, !Sub "${ATableArn}/index/by-x"]
  FnIntegration:
    Type: AWS::ApiGatewayV2::Integration
    Properties: {ApiId: !Ref HttpApi, IntegrationType: AWS_PROXY, IntegrationUri: !Ref Fn.Alias, PayloadFormatVersion: "2.0"}
  FnRouteThings:
    Type: AWS::ApiGatewayV2::Route
    Properties: {ApiId: !Ref HttpApi, RouteKey: "ANY /things/{proxy+}", Target: !Sub "integrations/${FnIntegration}"}
  FnRouteDefault:
    Type: AWS::ApiGatewayV2::Route
    Properties: {ApiId: !Ref HttpApi, RouteKey: $default, Target: !Sub "integrations/${FnIntegration}"}
Outputs:
  FnRoleArn:
    Value: !GetAtt FnRole.Arn
`

func writeNested(t *testing.T, parent, area string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "stacks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stacks", "area.yaml"), []byte(area), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, FileName)
	if err := os.WriteFile(p, []byte(parent), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadReadsNestedStacksAsOne: a nested stack's parameters read as what
// the parent passes, the parent's GetAtt of a nested output as the output's
// value, CodeUri relative to the parent, routes from Route resources.
func TestLoadReadsNestedStacksAsOne(t *testing.T) {
	p := writeNested(t, nestedParent, nestedArea)
	tpl, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	f, ok := tpl.Function("Fn")
	if !ok {
		t.Fatal("Fn of the nested stack is not in the view")
	}
	if f.CodeURI != "functions/fn" {
		t.Errorf("CodeURI = %q, want functions/fn (relative to the parent)", f.CodeURI)
	}
	if f.File != filepath.Join(filepath.Dir(p), "stacks", "area.yaml") {
		t.Errorf("File = %q", f.File)
	}
	if f.Env["TABLE_A"] != "!Ref ATable" || f.Timeout != 10 {
		t.Errorf("the nested stack's Globals: env %v, timeout %d", f.Env, f.Timeout)
	}
	if got := Raw(f.Properties["FunctionName"]); got != "!Sub x-${Environment}-fn" {
		t.Errorf("FunctionName = %s", got)
	}
	want := []Grant{{Policy: "Statement", Actions: []string{"dynamodb:Query"}, Resources: []string{"ATable", "ATable"}}}
	if !reflect.DeepEqual(f.Grants, want) {
		t.Errorf("grants = %+v, want %+v", f.Grants, want)
	}
	stmt := mapOf(mapOf(f.Properties["Policies"].([]any)[0])["Statement"].([]any)[0])
	if got := Raw(stmt["Resource"].([]any)[1]); got != "!Sub ${ATable.Arn}/index/by-x" {
		t.Errorf("a !Sub of a parameter reads %q, want the parent's ${ATable.Arn}", got)
	}
	var routes []string
	for _, r := range f.Routes {
		routes = append(routes, r.String())
	}
	if strings.Join(routes, ",") != "$default,ANY /things/{proxy+}" {
		t.Errorf("routes = %v", routes)
	}
	for _, e := range f.Events {
		if e.Type != "HttpApi" || e.Source != "HttpApi" {
			t.Errorf("event %+v, want an HttpApi event of HttpApi", e)
		}
	}
	key, _ := tpl.Resource("Key")
	principal := mapOf(mapOf(key.Properties["KeyPolicy"])["Statement"].([]any)[0])["Principal"]
	if got := Raw(mapOf(principal)["AWS"]); got != "!GetAtt FnRole.Arn" {
		t.Errorf("the key's principal reads %q, want the nested output's value !GetAtt FnRole.Arn", got)
	}
	stacks := tpl.Stacks()
	if len(stacks) != 2 || stacks[0].LogicalID != "" || stacks[1].LogicalID != "AreaStack" {
		t.Fatalf("stacks = %+v", stacks)
	}
	if r, _ := tpl.Resource("FnIntegration"); r.Stack != "AreaStack" {
		t.Errorf("FnIntegration's stack = %q", r.Stack)
	}
	if len(tpl.GlobalFunction) == 0 {
		t.Error("the view's GlobalFunction is empty: the parent has none, the nested stacks' apply")
	}
}

func TestLoadRefusesInconsistentNesting(t *testing.T) {
	for name, c := range map[string]struct{ parent, area, err string }{
		"parameter not passed": {strings.Replace(nestedParent, "        ATableArn: !GetAtt ATable.Arn\n", "", 1), nestedArea, "ATableArn"},
		"unknown parameter":    {nestedParent + "        Extra: x\n", nestedArea, "Extra"},
		"duplicate id":         {nestedParent, strings.Replace(nestedArea, "  FnRouteDefault:", "  ATable:\n    Type: AWS::SNS::Topic\n  FnRouteDefault:", 1), "ATable"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Load(writeNested(t, c.parent, c.area))
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("err = %v, want one naming %s", err, c.err)
			}
		})
	}
}

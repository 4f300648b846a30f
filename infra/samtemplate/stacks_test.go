package samtemplate

import (
	"reflect"
	"strings"
	"testing"
)

// stackLimit is each stack's budget (docs/architecture.md, Stack size):
// half of it is room to double before CloudFormation's 500.
const stackLimit = 200

// transformedCount is the number of resources a stack has after the SAM
// transform, as CloudFormation counts them: a function is its function,
// role, version and alias ("live"), plus an event rule and a permission per
// schedule, an event source mapping per queue or stream, a deployment group
// per DeploymentPreference (and one CodeDeploy application and service role
// per stack that has any); everything else is itself. make bench's stack
// size step measures the same with SAM's own translator.
func transformedCount(tpl *Template, st Stack) int {
	n, canary := 0, false
	for _, id := range st.Resources {
		r, _ := tpl.Resource(id)
		if r.Type != TypeFunction {
			n++
			continue
		}
		f, _ := tpl.Function(id)
		n += 4
		for _, e := range f.Events {
			if e.Resource != "" {
				continue // a Route or EventSourceMapping resource, counted as itself
			}
			switch e.Type {
			case "Schedule":
				n += 2
			case "SQS", "DynamoDB", "Kinesis", "HttpApi":
				n++ // the mapping, or the HttpApi event's permission
			}
		}
		if _, ok := f.Properties["DeploymentPreference"]; ok {
			n++
			canary = true
		}
	}
	if canary {
		n += 2
	}
	return n
}

// TestEveryStackHasRoomToDouble: no stack of the split holds more than 200
// resources, every declared group deployed.
func TestEveryStackHasRoomToDouble(t *testing.T) {
	tpl := load(t)
	if len(tpl.Stacks()) < 2 {
		t.Fatal("template.yaml declares no nested stack (infra/stacks)")
	}
	for _, st := range tpl.Stacks() {
		n := transformedCount(tpl, st)
		t.Logf("%s: %d resources", st.Path, n)
		if n > stackLimit {
			t.Errorf("%s (%s): %d resources after the SAM transform, over %d: split it further (docs/architecture.md, Stack size)", st.Path, st.LogicalID, n, stackLimit)
		}
	}
	for id := range declared() {
		if _, ok := tpl.Function(id); !ok {
			t.Errorf("%s is declared but in no stack", id)
		}
	}
}

// TestNestedStacksShareGlobals: every nested stack gives its functions the
// same Globals (runtime, tracing, logging, the tables and queues), as the
// single template did.
func TestNestedStacksShareGlobals(t *testing.T) {
	tpl := load(t)
	stacks := tpl.Stacks()
	for _, st := range stacks[1:] {
		if !reflect.DeepEqual(st.GlobalFunction, stacks[1].GlobalFunction) {
			t.Errorf("%s: Globals.Function differs from %s's", st.Path, stacks[1].Path)
		}
	}
	if len(stacks[0].GlobalFunction) != 0 {
		t.Errorf("template.yaml has Globals.Function but no function")
	}
	for _, f := range tpl.Functions() {
		if r, _ := tpl.Resource(f.LogicalID); r.Stack == "" {
			t.Errorf("%s is in template.yaml: functions live in a nested stack (infra/stacks)", f.LogicalID)
		}
	}
}

// TestRoutesReachTheLiveAlias: each HTTP function has one integration
// (Lambda proxy, payload 2.0) and one invoke permission, both on its "live"
// alias and on the one HTTP API, in its own stack; each route targets an
// integration of its stack.
func TestRoutesReachTheLiveAlias(t *testing.T) {
	tpl := load(t)
	integ := map[string][]Resource{}
	for _, r := range tpl.ResourcesOfType("AWS::ApiGatewayV2::Integration") {
		fn, alias, _ := strings.Cut(RefTarget(r.Properties["IntegrationUri"]), ".")
		if alias != "Alias" {
			t.Errorf("%s: IntegrationUri %s, want !Ref <Function>.Alias", r.LogicalID, Raw(r.Properties["IntegrationUri"]))
		}
		if Raw(r.Properties["IntegrationType"]) != "AWS_PROXY" || Raw(r.Properties["PayloadFormatVersion"]) != "2.0" {
			t.Errorf("%s: %s payload %s, want AWS_PROXY 2.0", r.LogicalID, Raw(r.Properties["IntegrationType"]), Raw(r.Properties["PayloadFormatVersion"]))
		}
		if RefTarget(r.Properties["ApiId"]) != "HttpApi" {
			t.Errorf("%s: ApiId %s, want HttpApi", r.LogicalID, Raw(r.Properties["ApiId"]))
		}
		integ[fn] = append(integ[fn], r)
	}
	perm := map[string][]Resource{}
	for _, r := range tpl.ResourcesOfType("AWS::Lambda::Permission") {
		fn, _, _ := strings.Cut(RefTarget(r.Properties["FunctionName"]), ".")
		if Raw(r.Properties["FunctionName"]) != "!Ref "+fn+".Alias" {
			t.Errorf("%s: FunctionName %s, want the function's alias", r.LogicalID, Raw(r.Properties["FunctionName"]))
		}
		if Raw(r.Properties["Principal"]) != "apigateway.amazonaws.com" ||
			!strings.HasSuffix(Raw(r.Properties["SourceArn"]), ":${HttpApi}/*") {
			t.Errorf("%s: principal %s, source %s, want API Gateway on the one HTTP API", r.LogicalID, Raw(r.Properties["Principal"]), Raw(r.Properties["SourceArn"]))
		}
		perm[fn] = append(perm[fn], r)
	}
	for _, f := range tpl.Functions() {
		r, _ := tpl.Resource(f.LogicalID)
		want := 0
		if len(f.Routes) > 0 {
			want = 1
		}
		if len(integ[f.LogicalID]) != want || len(perm[f.LogicalID]) != want {
			t.Errorf("%s: %d routes, %d integrations, %d permissions; want %d of each", f.LogicalID, len(f.Routes), len(integ[f.LogicalID]), len(perm[f.LogicalID]), want)
		}
		for _, x := range append(integ[f.LogicalID], perm[f.LogicalID]...) {
			if x.Stack != r.Stack {
				t.Errorf("%s is in %q, its function %s in %q", x.LogicalID, x.Stack, f.LogicalID, r.Stack)
			}
		}
	}
	for _, rt := range tpl.ResourcesOfType("AWS::ApiGatewayV2::Route") {
		target, _ := intrinsicArg(rt.Properties["Target"], "Fn::Sub").(string)
		in, ok := tpl.Resource(strings.TrimSuffix(strings.TrimPrefix(target, "integrations/${"), "}"))
		if !ok || in.Type != "AWS::ApiGatewayV2::Integration" || in.Stack != rt.Stack {
			t.Errorf("%s: Target %q, want !Sub integrations/${<Function>Integration} of its own stack", rt.LogicalID, target)
		}
	}
}

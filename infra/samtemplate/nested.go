package samtemplate

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Nested stacks: template.yaml holds the tables, queues, HTTP API, log
// groups, alarms of the whole API and the dashboard, and one
// AWS::Serverless::Application per area whose Location is a template under
// infra/stacks (docs/architecture.md, Stack size). Load reads them all into
// one view, as if they were one template: a nested template's parameter is
// replaced by what the parent passes for it (!Ref AccountsTableArn in a
// nested stack reads as the parent's !GetAtt AccountsTable.Arn), and the
// parent's !GetAtt <Stack>.Outputs.<Name> by the output's value in that
// stack. So the checks of this package and the tools that read the template
// see logical ids of the resources themselves, wherever they live.

// TypeApplication is a nested stack.
const TypeApplication = "AWS::Serverless::Application"

// Stack is one template of the view: the parent (LogicalID "") or a nested
// stack.
type Stack struct {
	LogicalID string // the AWS::Serverless::Application's id; "" for the parent
	Path      string // the template file
	// Resources are the logical ids the template itself declares, sorted.
	Resources []string
	// GlobalFunction is the template's own Globals.Function (with the
	// parent's values substituted for its parameters).
	GlobalFunction map[string]any
}

// Stacks returns the parent and every nested stack, the parent first, then
// by logical id.
func (t *Template) Stacks() []Stack { return t.stacks }

// loadNested reads the nested stacks of t (loaded from path) into it.
func (t *Template) loadNested(path string) error {
	root := Stack{Path: path, GlobalFunction: t.GlobalFunction}
	for id := range t.resources {
		root.Resources = append(root.Resources, id)
	}
	sort.Strings(root.Resources)
	t.stacks = []Stack{root}
	outputs := map[string]map[string]any{} // stack id -> output name -> value
	for _, app := range t.ResourcesOfType(TypeApplication) {
		loc, ok := app.Properties["Location"].(string)
		if !ok {
			continue // an application from the Serverless Application Repository
		}
		file := filepath.Join(filepath.Dir(path), loc)
		nested, err := Load(file)
		if err != nil {
			return fmt.Errorf("%s: %w", app.LogicalID, err)
		}
		passed := mapOf(app.Properties["Parameters"])
		for name := range nested.Parameters {
			if _, ok := passed[name]; !ok && mapOf(nested.Parameters[name])["Default"] == nil {
				return fmt.Errorf("%s: parameter %s of %s is not passed", app.LogicalID, name, loc)
			}
		}
		for name := range passed {
			if _, ok := nested.Parameters[name]; !ok {
				return fmt.Errorf("%s passes %s, which %s does not declare", app.LogicalID, name, loc)
			}
		}
		sub := func(v any) any { return substitute(v, passed) }
		st := Stack{LogicalID: app.LogicalID, Path: file, GlobalFunction: sub(nested.GlobalFunction).(map[string]any)}
		for id, r := range nested.resources {
			if other, dup := t.resources[id]; dup {
				return fmt.Errorf("%s: logical id %s is also in %s", loc, id, t.stackOf(other))
			}
			r.Properties = sub(r.Properties).(map[string]any)
			r.Stack = app.LogicalID
			r.globals = st.GlobalFunction
			t.resources[id] = r
			st.Resources = append(st.Resources, id)
		}
		sort.Strings(st.Resources)
		outputs[app.LogicalID] = map[string]any{}
		for name, o := range nested.Outputs {
			outputs[app.LogicalID][name] = sub(mapOf(o)["Value"])
		}
		t.stacks = append(t.stacks, st)
	}
	if len(t.stacks) == 1 {
		return nil
	}
	if len(t.GlobalFunction) == 0 {
		t.GlobalFunction = t.stacks[1].GlobalFunction
	}
	for id, r := range t.resources {
		if r.Stack == "" {
			r.Properties = resolveOutputs(r.Properties, outputs).(map[string]any)
			t.resources[id] = r
		}
	}
	t.Outputs = resolveOutputs(t.Outputs, outputs).(map[string]any)
	return nil
}

func (t *Template) stackOf(r Resource) string {
	if r.Stack == "" {
		return "the parent template"
	}
	return r.Stack
}

var subParam = regexp.MustCompile(`\$\{([A-Za-z0-9_:.]+)\}`)

// substitute replaces the references to the parameters in passed by their
// values: {"Ref": P} by the value, and ${P} in a !Sub string by its !Sub
// form (${X} for !Ref X, ${X.Y} for !GetAtt X.Y, a literal as itself).
func substitute(v any, passed map[string]any) any {
	return rewrite(v, func(name string, arg any) (any, bool) {
		switch name {
		case "Ref":
			if p, isStr := arg.(string); isStr {
				val, ok := passed[p]
				return val, ok
			}
		case "Fn::Sub":
			switch a := arg.(type) {
			case string:
				return map[string]any{"Fn::Sub": subString(a, passed)}, true
			case []any:
				if len(a) == 2 {
					s, _ := a[0].(string)
					return map[string]any{"Fn::Sub": []any{subString(s, passed), substitute(a[1], passed)}}, true
				}
			}
		}
		return nil, false
	})
}

// rewrite copies v, replacing each intrinsic for which f answers true by
// what f returns.
func rewrite(v any, f func(name string, arg any) (any, bool)) any {
	switch x := v.(type) {
	case map[string]any:
		if name, arg, ok := intrinsic(x); ok {
			if out, done := f(name, arg); done {
				return out
			}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = rewrite(e, f)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = rewrite(e, f)
		}
		return out
	}
	return v
}

func subString(s string, passed map[string]any) string {
	return subParam.ReplaceAllStringFunc(s, func(m string) string {
		val, ok := passed[m[2:len(m)-1]]
		if !ok {
			return m
		}
		switch name, arg, isIntrinsic := intrinsic(val); {
		case !isIntrinsic:
			if lit, isStr := val.(string); isStr {
				return lit
			}
		case name == "Ref":
			return "${" + Raw(arg) + "}"
		case name == "Fn::GetAtt":
			if parts, isList := arg.([]any); isList && len(parts) == 2 {
				return "${" + Raw(parts[0]) + "." + Raw(parts[1]) + "}"
			}
			if s, isStr := arg.(string); isStr { // the short form's "Id.Attr"
				return "${" + s + "}"
			}
		}
		return m
	})
}

// resolveOutputs replaces !GetAtt <Stack>.Outputs.<Name> by the output's
// value.
func resolveOutputs(v any, outputs map[string]map[string]any) any {
	return rewrite(v, func(name string, arg any) (any, bool) {
		if name != "Fn::GetAtt" {
			return nil, false
		}
		var stack, attr string
		switch a := arg.(type) {
		case []any:
			if len(a) == 2 {
				stack, attr = Raw(a[0]), Raw(a[1])
			}
		case string: // the short form's "Stack.Outputs.Name"
			stack, attr, _ = strings.Cut(a, ".")
		}
		out, isOut := strings.CutPrefix(attr, "Outputs.")
		if !isOut {
			return nil, false
		}
		val, ok := outputs[stack][out]
		return val, ok
	})
}

// declaredEvents are the event sources declared as resources rather than
// as SAM events, by the function they invoke: the HTTP API's routes
// (AWS::ApiGatewayV2::Route resources, the nested stacks' routes; the
// function is the one their integration invokes, IntegrationUri
// !Ref <Function>.Alias), and the event source mappings of queues and
// streams (AWS::Lambda::EventSourceMapping of !Ref <Function>.Alias: SAM's
// SQS and DynamoDB events would attach a managed policy reading every queue
// or stream). Each reads as the SAM event it stands for: HttpApi with ApiId,
// Method and Path; SQS with Queue, DynamoDB or Kinesis with Stream, and the
// mapping's other properties.
func (t *Template) declaredEvents() map[string][]Event {
	out := map[string][]Event{}
	for _, r := range t.ResourcesOfType("AWS::ApiGatewayV2::Route") {
		target, _ := intrinsicArg(r.Properties["Target"], "Fn::Sub").(string)
		integ, ok := strings.CutPrefix(target, "integrations/${")
		if !ok {
			continue
		}
		in, ok := t.resources[strings.TrimSuffix(integ, "}")]
		if !ok {
			continue
		}
		fn, _, _ := strings.Cut(RefTarget(in.Properties["IntegrationUri"]), ".")
		key := Raw(r.Properties["RouteKey"])
		props := map[string]any{"ApiId": r.Properties["ApiId"]}
		if key != DefaultRoute {
			method, path, _ := strings.Cut(key, " ")
			props["Method"], props["Path"] = method, path
		}
		out[fn] = append(out[fn], Event{Name: r.LogicalID, Type: "HttpApi", Source: RefTarget(r.Properties["ApiId"]), Properties: props, Resource: r.LogicalID})
	}
	for _, r := range t.ResourcesOfType("AWS::Lambda::EventSourceMapping") {
		fn, _, _ := strings.Cut(RefTarget(r.Properties["FunctionName"]), ".")
		arn := r.Properties["EventSourceArn"]
		source := RefTarget(arn)
		src, _ := t.resources[source]
		e := Event{Name: strings.TrimPrefix(r.LogicalID, fn), Source: source, Properties: map[string]any{}, Resource: r.LogicalID}
		for k, v := range r.Properties {
			if k != "FunctionName" && k != "EventSourceArn" {
				e.Properties[k] = v
			}
		}
		switch src.Type {
		case TypeQueue:
			e.Type, e.Properties["Queue"] = "SQS", arn
		case TypeTable:
			e.Type, e.Properties["Stream"] = "DynamoDB", arn
		case "AWS::Kinesis::Stream":
			e.Type, e.Properties["Stream"] = "Kinesis", arn
		default:
			e.Type = "EventSourceMapping"
		}
		out[fn] = append(out[fn], e)
	}
	return out
}

func intrinsicArg(v any, want string) any {
	if name, arg, ok := intrinsic(v); ok && name == want {
		return arg
	}
	return nil
}

// Package samtemplate reads the SAM template (template.yaml, with the nested
// stacks it declares under infra/stacks, as one template: nested.go) so that
// code and tests can rely on what it declares: the functions with their
// routes, events, environment and permissions, and the tables and queues.
// The local gateway serves exactly these routes, the invoker finds a
// function's CodeUri and environment here, and the tests in this package
// hold the template to the project's deployment rules.
package samtemplate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/awslabs/goformation/v7/intrinsics"
)

// Resource types this package interprets.
const (
	TypeFunction = "AWS::Serverless::Function"
	TypeHTTPAPI  = "AWS::Serverless::HttpApi"
	TypeAPI      = "AWS::ApiGatewayV2::Api" // the HTTP API template.yaml declares
	TypeTable    = "AWS::DynamoDB::Table"
	TypeQueue    = "AWS::SQS::Queue"
	TypeAlarm    = "AWS::CloudWatch::Alarm"
)

// Template is a parsed SAM template. Values are plain Go values
// (map[string]any, []any, string, int, bool) with intrinsics in long form
// ({"Ref": "X"}, {"Fn::GetAtt": ["X", "Arn"]}, ...).
type Template struct {
	Path       string
	Parameters map[string]any
	Conditions map[string]any
	Outputs    map[string]any
	// GlobalFunction is Globals.Function: defaults merged into every function.
	GlobalFunction map[string]any
	resources      map[string]Resource
	stacks         []Stack
}

// Resource is one entry of Resources.
type Resource struct {
	LogicalID  string
	Type       string
	Condition  string
	Metadata   map[string]any
	Properties map[string]any
	// Stack is the nested stack declaring the resource ("" for the parent).
	Stack string
	// File is the template file declaring the resource.
	File string
	// globals is Globals.Function of the resource's own template.
	globals map[string]any
}

// Load parses the template at path and the nested stacks it declares
// (nested.go): Resources then holds the resources of every stack.
func Load(path string) (*Template, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t.Path = path
	for id, r := range t.resources {
		r.File = path
		t.resources[id] = r
	}
	if err := t.loadNested(path); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Parse parses a template from its YAML (or JSON) text. goformation reads
// the YAML and turns CloudFormation's short-form tags (!Ref, !GetAtt, !Sub,
// ...) into their long form ({"Ref": x}, {"Fn::GetAtt": ...}); intrinsics are
// kept, not evaluated (NoProcess), since what the tests check is what the
// template says (a grant's !GetAtt target, a name's ${Environment}), which
// only exists in a deployed stack once evaluated. Its typed resource model is
// not used: it cannot hold an intrinsic in a non-string field
// (DeletionProtectionEnabled: !If ...) and decodes a Policies list that mixes
// statements and policy templates by heuristics, losing entries.
func Parse(data []byte) (*Template, error) {
	js, err := intrinsics.ProcessYAML(data, &intrinsics.ProcessorOptions{NoProcess: true})
	if err != nil {
		return nil, err
	}
	var root map[string]any
	if err := json.Unmarshal(js, &root); err != nil {
		return nil, errors.New("template is not a mapping")
	}
	globals := mapOf(root["Globals"])
	t := &Template{
		Parameters:     mapOf(root["Parameters"]),
		Conditions:     mapOf(root["Conditions"]),
		Outputs:        mapOf(root["Outputs"]),
		GlobalFunction: mapOf(globals["Function"]),
		resources:      map[string]Resource{},
	}
	res, ok := root["Resources"].(map[string]any)
	if !ok || len(res) == 0 {
		return nil, errors.New("template has no Resources")
	}
	for id, body := range res {
		m, ok := body.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("resource %s is not a mapping", id)
		}
		typ, _ := m["Type"].(string)
		if typ == "" {
			return nil, fmt.Errorf("resource %s has no Type", id)
		}
		cond, _ := m["Condition"].(string)
		t.resources[id] = Resource{
			LogicalID:  id,
			Type:       typ,
			Condition:  cond,
			Metadata:   mapOf(m["Metadata"]),
			Properties: mapOf(m["Properties"]),
			globals:    t.GlobalFunction,
		}
	}
	return t, nil
}

// Resource returns the resource with logical id id.
func (t *Template) Resource(id string) (Resource, bool) {
	r, ok := t.resources[id]
	return r, ok
}

// ResourcesOfType returns the resources of type typ, sorted by logical id.
func (t *Template) ResourcesOfType(typ string) []Resource {
	var out []Resource
	for _, r := range t.resources {
		if r.Type == typ {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].LogicalID < out[j].LogicalID })
	return out
}

// Tables returns the logical ids of the DynamoDB tables, sorted.
func (t *Template) Tables() []string {
	var ids []string
	for _, r := range t.ResourcesOfType(TypeTable) {
		ids = append(ids, r.LogicalID)
	}
	return ids
}

// mapOf returns v as a map, or an empty map when it is absent or not one.
func mapOf(v any) map[string]any {
	if m, ok := v.(map[string]any); ok {
		return m
	}
	return map[string]any{}
}

// intOf returns v as an int when it is a literal number.
func intOf(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case float64:
		if x == float64(int(x)) {
			return int(x), true
		}
	}
	return 0, false
}

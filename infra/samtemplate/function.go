package samtemplate

import (
	"path/filepath"
	"sort"
	"strings"
)

// Function is a Lambda function of the template with Globals applied.
type Function struct {
	LogicalID     string
	File          string // the template file declaring it (a nested stack's, or template.yaml)
	CodeURI       string
	Runtime       string
	Handler       string
	Architectures []string
	BuildMethod   string // Metadata.BuildMethod
	Timeout       int    // seconds; Lambda's default (3) when not set
	MemorySize    int    // MB; Lambda's default (128) when not set
	Routes        []Route
	Events        []Event
	// Env holds the environment variables: literal values as themselves,
	// intrinsic ones in their raw short form ("!Ref AccountsTable").
	Env    map[string]string
	Grants []Grant
	// Properties are the function's properties merged over Globals.Function.
	Properties map[string]any
}

// Route is one HTTP API route.
type Route struct {
	Method   string // upper case; ANY for any method; "" for $default
	Path     string // as in the template, e.g. /v1/orders/{id}
	Function string // logical id of the function serving it
}

func (r Route) String() string {
	if r.Path == DefaultRoute {
		return DefaultRoute
	}
	return r.Method + " " + r.Path
}

// DefaultRoute is the route key (and Path) of the $default route.
const DefaultRoute = "$default"

// Event is one event source of a function.
type Event struct {
	Name string // key under Events
	Type string // HttpApi, SQS, DynamoDB, Schedule, ...
	// Source is the logical id the event comes from: the API of an HttpApi
	// event, the queue of an SQS event, the table of a DynamoDB stream event.
	Source     string
	Properties map[string]any
	// Resource is the logical id of the resource declaring the event (an
	// AWS::ApiGatewayV2::Route or an AWS::Lambda::EventSourceMapping, see
	// declaredEvents); "" for an event under the function's own Events.
	Resource string
}

// Grant is one entry of a function's Policies.
type Grant struct {
	// Policy is the SAM policy template name (e.g. DynamoDBReadPolicy), the
	// managed policy name or ARN, or "Statement" for an inline statement.
	Policy string
	// Actions of an inline statement; empty for templates and managed policies.
	Actions []string
	// Resources are the logical ids (and parameters) the grant is narrowed to,
	// and "*" for a literal wildcard resource.
	Resources []string
}

// Lambda defaults applied when neither Globals nor the function set a value.
const (
	defaultTimeout = 3
	defaultMemory  = 128
)

// Functions returns every function, sorted by logical id.
func (t *Template) Functions() []Function {
	var out []Function
	routes := t.declaredEvents()
	for _, r := range t.ResourcesOfType(TypeFunction) {
		out = append(out, t.function(r, routes[r.LogicalID]))
	}
	return out
}

// Function returns the function with logical id id.
func (t *Template) Function(id string) (Function, bool) {
	r, ok := t.resources[id]
	if !ok || r.Type != TypeFunction {
		return Function{}, false
	}
	return t.function(r, t.declaredEvents()[id]), true
}

// Routes returns every HTTP API route of every function, sorted by path and
// then method.
func (t *Template) Routes() []Route {
	var out []Route
	for _, f := range t.Functions() {
		out = append(out, f.Routes...)
	}
	sortRoutes(out)
	return out
}

func sortRoutes(rs []Route) {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].Path != rs[j].Path {
			return rs[i].Path < rs[j].Path
		}
		return rs[i].Method < rs[j].Method
	})
}

// function reads r with its template's Globals applied; api are its event
// sources declared as resources (see declaredEvents).
func (t *Template) function(r Resource, api []Event) Function {
	p := merge(r.globals, r.Properties).(map[string]any)
	f := Function{
		LogicalID:   r.LogicalID,
		File:        r.File,
		CodeURI:     t.codeURI(r, Raw(p["CodeUri"])),
		Runtime:     Raw(p["Runtime"]),
		Handler:     Raw(p["Handler"]),
		BuildMethod: Raw(r.Metadata["BuildMethod"]),
		Timeout:     defaultTimeout,
		MemorySize:  defaultMemory,
		Env:         map[string]string{},
		Properties:  p,
	}
	if n, ok := intOf(p["Timeout"]); ok {
		f.Timeout = n
	}
	if n, ok := intOf(p["MemorySize"]); ok {
		f.MemorySize = n
	}
	if archs, ok := p["Architectures"].([]any); ok {
		for _, a := range archs {
			f.Architectures = append(f.Architectures, Raw(a))
		}
	}
	for k, v := range mapOf(mapOf(p["Environment"])["Variables"]) {
		f.Env[k] = Raw(v)
	}
	f.Events = events(mapOf(p["Events"]))
	f.Events = append(f.Events, api...)
	sort.Slice(f.Events, func(i, j int) bool { return f.Events[i].Name < f.Events[j].Name })
	for _, e := range f.Events {
		if e.Type != "HttpApi" {
			continue
		}
		path := Raw(e.Properties["Path"])
		if path == "" {
			// SAM makes an HttpApi event without Path the $default route.
			f.Routes = append(f.Routes, Route{Path: DefaultRoute, Function: r.LogicalID})
			continue
		}
		method := strings.ToUpper(Raw(e.Properties["Method"]))
		if method == "" {
			method = "ANY"
		}
		f.Routes = append(f.Routes, Route{Method: method, Path: path, Function: r.LogicalID})
	}
	sortRoutes(f.Routes)
	f.Grants = grants(p["Policies"])
	return f
}

// codeURI is a local CodeUri relative to the parent template's directory
// (functions/health), wherever the function's own template is.
func (t *Template) codeURI(r Resource, uri string) string {
	if t.Path == "" || r.File == "" || uri == "" || strings.Contains(uri, "://") {
		return uri
	}
	rel, err := filepath.Rel(filepath.Dir(t.Path), filepath.Join(filepath.Dir(r.File), uri))
	if err != nil {
		return uri
	}
	return filepath.ToSlash(rel)
}

func events(m map[string]any) []Event {
	var out []Event
	for name, v := range m {
		ev := mapOf(v)
		props := mapOf(ev["Properties"])
		e := Event{Name: name, Type: Raw(ev["Type"]), Properties: props}
		switch e.Type {
		case "HttpApi":
			e.Source = RefTarget(props["ApiId"])
		case "SQS":
			e.Source = RefTarget(props["Queue"])
		case "DynamoDB", "Kinesis":
			e.Source = RefTarget(props["Stream"])
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// grants reads Policies: a managed policy name, a policy document, or a list
// of names, documents and SAM policy templates ({TemplateName: {args}}).
func grants(v any) []Grant {
	var out []Grant
	switch x := v.(type) {
	case nil:
	case []any:
		for _, item := range x {
			out = append(out, grants(item)...)
		}
	case map[string]any:
		if stmts, ok := x["Statement"]; ok {
			return statements(stmts)
		}
		if _, _, isIntrinsic := intrinsic(x); isIntrinsic {
			return []Grant{{Policy: Raw(x)}}
		}
		for name, args := range x {
			out = append(out, Grant{Policy: name, Resources: refs(args)})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Policy < out[j].Policy })
	default:
		out = append(out, Grant{Policy: Raw(x)})
	}
	return out
}

func statements(v any) []Grant {
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	var out []Grant
	for _, s := range list {
		st := mapOf(s)
		g := Grant{Policy: "Statement", Actions: strs(st["Action"])}
		for _, r := range asList(st["Resource"]) {
			if s, literal := r.(string); literal {
				g.Resources = append(g.Resources, s)
				continue
			}
			g.Resources = append(g.Resources, refs(r)...)
		}
		out = append(out, g)
	}
	return out
}

func asList(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	if v == nil {
		return nil
	}
	return []any{v}
}

func strs(v any) []string {
	var out []string
	for _, e := range asList(v) {
		out = append(out, Raw(e))
	}
	return out
}

// merge applies SAM's Globals rules: the function's scalars win, maps merge
// key by key, lists are the global entries followed by the function's, and an
// intrinsic counts as a scalar.
func merge(global, local any) any {
	if local == nil {
		return global
	}
	if global == nil {
		return local
	}
	_, _, gi := intrinsic(global)
	_, _, li := intrinsic(local)
	switch g := global.(type) {
	case map[string]any:
		l, ok := local.(map[string]any)
		if !ok || gi || li {
			return local
		}
		out := make(map[string]any, len(g)+len(l))
		for k, v := range g {
			out[k] = v
		}
		for k, v := range l {
			out[k] = merge(out[k], v)
		}
		return out
	case []any:
		l, ok := local.([]any)
		if !ok {
			return local
		}
		return append(append([]any{}, g...), l...)
	}
	return local
}

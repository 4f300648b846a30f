// Package openapitest validates HTTP responses against an OpenAPI 3.1
// document with santhosh-tekuri/jsonschema (JSON Schema 2020-12, the dialect
// of OpenAPI 3.1). Tests use it on every response they receive.
package openapitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Validator checks responses against one document.
type Validator struct {
	base     string
	paths    map[string]map[string]map[string]json.RawMessage // path -> method -> status -> response
	compiler *jsonschema.Compiler
	doc      any
	mu       sync.Mutex
	cache    map[string]*jsonschema.Schema
}

// New loads doc; name is a unique base URL for its resource.
func New(name string, doc []byte) (*Validator, error) {
	var parsed struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(doc, &parsed); err != nil {
		return nil, err
	}
	v := &Validator{base: "https://openapi.test/" + name + ".json", paths: map[string]map[string]map[string]json.RawMessage{}, cache: map[string]*jsonschema.Schema{}}
	for p, ops := range parsed.Paths {
		v.paths[p] = map[string]map[string]json.RawMessage{}
		for m, raw := range ops {
			var op struct {
				Responses map[string]json.RawMessage `json:"responses"`
			}
			if json.Unmarshal(raw, &op) == nil && op.Responses != nil {
				v.paths[p][strings.ToUpper(m)] = op.Responses
			}
		}
	}
	res, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(v.base, res); err != nil {
		return nil, err
	}
	v.compiler = c
	if err := json.Unmarshal(doc, &v.doc); err != nil {
		return nil, err
	}
	return v, nil
}

// Match finds the document's path template for a concrete path.
func (v *Validator) Match(path string) (string, bool) {
	if _, ok := v.paths[path]; ok {
		return path, true
	}
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var best string
	for tmpl := range v.paths {
		ts := strings.Split(strings.Trim(tmpl, "/"), "/")
		if len(ts) != len(segs) {
			continue
		}
		ok := true
		for i := range ts {
			if ts[i] != segs[i] && !(strings.HasPrefix(ts[i], "{") && strings.HasSuffix(ts[i], "}")) {
				ok = false
				break
			}
		}
		// Prefer the most literal template, as routers do.
		if ok && (best == "" || strings.Count(tmpl, "{") < strings.Count(best, "{")) {
			best = tmpl
		}
	}
	return best, best != ""
}

// Validate checks one response. A route or status the document does not
// describe is an error too: the document must cover what the service says.
func (v *Validator) Validate(method, path string, status int, contentType string, body []byte) error {
	tmpl, ok := v.Match(path)
	var resps map[string]json.RawMessage
	if ok {
		resps, ok = v.paths[tmpl][strings.ToUpper(method)]
	}
	if !ok {
		// No such operation: only the platform's 404/405 may answer, in the
		// shared error response.
		if status != 404 && status != 405 {
			return fmt.Errorf("openapi: no %s operation for %s, yet status %d", method, path, status)
		}
		tmpl = path
		resps = map[string]json.RawMessage{"default": json.RawMessage(`{"$ref": "#/components/responses/Error"}`)}
	}
	code := strconv.Itoa(status)
	if _, ok := resps[code]; !ok {
		code = code[:1] + "XX"
		if _, ok := resps[code]; !ok {
			code = "default"
			if _, ok := resps[code]; !ok {
				return fmt.Errorf("openapi: %s %s has no response for status %d", method, tmpl, status)
			}
		}
	}
	var resp struct {
		Ref     string                     `json:"$ref"`
		Content map[string]json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(resps[code], &resp); err != nil {
		return err
	}
	ptr := "/paths/" + escape(tmpl) + "/" + strings.ToLower(method) + "/responses/" + code
	if resp.Ref != "" {
		ptr = strings.TrimPrefix(resp.Ref, "#")
		if err := v.lookup(ptr, &resp); err != nil {
			return err
		}
	}
	if len(resp.Content) == 0 {
		if len(bytes.TrimSpace(body)) != 0 {
			return fmt.Errorf("openapi: %s %s %d documents no body but got one", method, tmpl, status)
		}
		return nil
	}
	mt, _, _ := strings.Cut(contentType, ";")
	_, documented := resp.Content[strings.TrimSpace(mt)]
	if _, ok := resp.Content["application/json"]; !ok || documented && strings.TrimSpace(mt) != "application/json" {
		// A page, script or stylesheet (or a response documented as a page
		// or a JSON error, the dashboard's 4XX): its media type must be
		// documented, and it has a body; the document gives no schema to
		// check it by.
		if _, ok := resp.Content[strings.TrimSpace(mt)]; !ok {
			return fmt.Errorf("openapi: %s %s %d: content type %q is not documented", method, tmpl, status, contentType)
		}
		if len(body) == 0 {
			return fmt.Errorf("openapi: %s %s %d: empty %s body", method, tmpl, status, contentType)
		}
		return nil
	}
	if !strings.HasPrefix(contentType, "application/json") {
		return fmt.Errorf("openapi: %s %s %d: content type %q, want application/json", method, tmpl, status, contentType)
	}
	sch, err := v.schema(ptr + "/content/" + escape("application/json") + "/schema")
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("openapi: body is not JSON: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("openapi: %s %s %d: %v\nbody: %s", method, path, status, err, truncate(body))
	}
	return nil
}

// ValidateSchema checks a value against a named component schema (for bodies
// that are not HTTP responses, such as webhook payloads).
func (v *Validator) ValidateSchema(name string, body []byte) error {
	sch, err := v.schema("/components/schemas/" + escape(name))
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

func (v *Validator) schema(ptr string) (*jsonschema.Schema, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.cache[ptr]; ok {
		return s, nil
	}
	s, err := v.compiler.Compile(v.base + "#" + ptr)
	if err != nil {
		return nil, fmt.Errorf("openapi: compile %s: %w", ptr, err)
	}
	v.cache[ptr] = s
	return s, nil
}

// lookup reads a JSON pointer of the document into out (for response refs).
func (v *Validator) lookup(ptr string, out any) error {
	var cur any = v.doc
	for _, part := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return fmt.Errorf("openapi: bad ref %s", ptr)
		}
		if cur, ok = m[part]; !ok {
			return fmt.Errorf("openapi: ref %s not found", ptr)
		}
	}
	b, err := json.Marshal(cur)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

func escape(s string) string {
	return url.PathEscape(strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1"))
}

func truncate(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "..."
	}
	return string(b)
}

// Paths lists the document's paths and methods, sorted, as "METHOD /path".
func (v *Validator) Paths() []string {
	var out []string
	for p, ops := range v.paths {
		for m := range ops {
			out = append(out, m+" "+p)
		}
	}
	sort.Strings(out)
	return out
}

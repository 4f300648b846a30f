package docsite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/text"
)

// The API reference (/docs/api) is generated from the OpenAPI document the
// service serves at /openapi.json: every operation, grouped by its tag
// (the area), with its parameters, request body, responses, the error
// codes that name its fields, a curl example and an example answer built
// from its schemas; then every schema, then every error code (the
// document's ErrorCode enum, with each code's status and meaning from
// docs/errors.md, which the error-code registry writes). A search (?q=,
// every word must appear in the operation's method, path, id, tag, summary
// or description) narrows the operations on the server, so it works
// without JavaScript.

// Reference is the document, read once.
type Reference struct {
	doc    map[string]any
	tags   []refTag
	md     goldmark.Markdown
	codes  []errorCode
	schema []refSchema
}

type refTag struct {
	Name, Anchor string
	Description  template.HTML
	Ops          []*refOp
}

type refOp struct {
	ID, Method, Path, Summary, Tag, Anchor string
	Description                            template.HTML
	Auth                                   bool
	Params                                 []refField
	Body                                   *refContent
	Responses                              []refResponse
	Codes                                  []errorCode
	Example, ExampleAnswer                 string
	haystack                               string
}

type refField struct {
	Name, In    string
	Type        template.HTML
	Required    bool
	Description template.HTML
}

type refContent struct {
	Type   string // media type
	Schema template.HTML
}

type refResponse struct {
	Status      string
	Description template.HTML
	Content     []refContent
	Error       bool
}

type refSchema struct {
	Name, Anchor string
	Type         template.HTML
	Description  template.HTML
	Fields       []refField
}

// errorCode is one row of docs/errors.md's table.
type errorCode struct {
	Code, Status, Param, Meaning string
}

// errorRow is a row of errors.md's tables: | `code` | `param` | meaning |.
var errorRow = regexp.MustCompile("^\\| `([a-z0-9_]+)` \\| (?:`([^`]*)`)? *\\| (.*) \\|$")

func parseErrorCodes(src []byte) []errorCode {
	var out []errorCode
	status := ""
	for _, line := range strings.Split(string(src), "\n") {
		if s, ok := strings.CutPrefix(line, "## "); ok {
			status = strings.TrimSpace(s)
			continue
		}
		if m := errorRow.FindStringSubmatch(line); m != nil {
			out = append(out, errorCode{Code: m[1], Param: m[2], Meaning: m[3], Status: status})
		}
	}
	return out
}

// newReference reads an OpenAPI document; the site gives the error codes'
// meanings.
func (s *Site) newReference(document []byte) (*Reference, error) {
	r := &Reference{md: markdown(links{rooted: true})}
	if err := json.Unmarshal(document, &r.doc); err != nil {
		return nil, fmt.Errorf("docsite: the OpenAPI document: %w", err)
	}
	byCode := map[string]errorCode{}
	for _, c := range s.errors {
		byCode[c.Code] = c
	}
	for _, c := range strs(dig(r.doc, "components", "schemas", "ErrorCode", "enum")) {
		e, ok := byCode[c]
		if !ok {
			e = errorCode{Code: c}
		}
		r.codes = append(r.codes, e)
	}
	r.buildOps()
	r.buildSchemas()
	return r, nil
}

func (r *Reference) buildOps() {
	tagIndex := map[string]int{}
	addTag := func(name string) int {
		if i, ok := tagIndex[name]; ok {
			return i
		}
		tagIndex[name] = len(r.tags)
		r.tags = append(r.tags, refTag{Name: name, Anchor: "tag-" + slug(name)})
		return tagIndex[name]
	}
	for _, t := range list(r.doc["tags"]) {
		tm, _ := t.(map[string]any)
		i := addTag(str(tm["name"]))
		r.tags[i].Description = r.markdown(str(tm["description"]))
	}
	globalAuth := len(list(r.doc["security"])) > 0
	paths, _ := r.doc["paths"].(map[string]any)
	var found []*refOp
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		item, _ := paths[p].(map[string]any)
		for _, m := range []string{"get", "post", "put", "patch", "delete", "head", "options", "trace"} {
			raw, ok := item[m].(map[string]any)
			if !ok {
				continue
			}
			found = append(found, r.op(p, strings.ToUpper(m), raw, list(item["parameters"]), globalAuth))
		}
	}
	for _, op := range found {
		i := addTag(op.Tag)
		r.tags[i].Ops = append(r.tags[i].Ops, op)
	}
	r.tags = slices.DeleteFunc(r.tags, func(t refTag) bool { return len(t.Ops) == 0 })
}

func (r *Reference) op(p, method string, raw map[string]any, shared []any, globalAuth bool) *refOp {
	op := &refOp{ID: str(raw["operationId"]), Method: method, Path: p, Summary: str(raw["summary"]), Tag: "Other"}
	if tags := strs(raw["tags"]); len(tags) > 0 {
		op.Tag = tags[0]
	}
	op.Anchor = "op-" + slug(op.ID)
	if op.ID == "" {
		op.Anchor = "op-" + slug(method+" "+p)
	}
	op.Description = r.markdown(str(raw["description"]))
	op.Auth = globalAuth
	if sec, ok := raw["security"]; ok {
		op.Auth = len(list(sec)) > 0
	}
	fields := map[string]bool{}
	var path, query, headers []string
	for _, pr := range append(slices.Clone(shared), list(raw["parameters"])...) {
		pm := r.resolve(pr)
		f := refField{Name: str(pm["name"]), In: str(pm["in"]), Required: pm["required"] == true,
			Type: r.typeOf(pm["schema"]), Description: r.markdown(str(pm["description"]))}
		op.Params = append(op.Params, f)
		fields[strings.ToLower(f.Name)] = true
		ex := r.example(pm["schema"], 0)
		switch {
		case f.In == "path":
			path = append(path, "{"+f.Name+"}", fmt.Sprint(ex))
		case f.In == "query" && f.Required:
			query = append(query, f.Name+"="+fmt.Sprint(ex))
		case f.In == "header" && strings.EqualFold(f.Name, "Idempotency-Key"):
			headers = append(headers, "Idempotency-Key: $(uuidgen)")
		case f.In == "header" && f.Required:
			headers = append(headers, f.Name+": "+fmt.Sprint(ex))
		}
	}
	var body any
	bodyType := ""
	if rb := r.resolve(raw["requestBody"]); rb != nil {
		content, _ := rb["content"].(map[string]any)
		// The JSON body when there is one, else the first.
		if cts := slices.Sorted(maps.Keys(content)); len(cts) > 0 {
			bodyType = cts[0]
			if _, ok := content["application/json"]; ok {
				bodyType = "application/json"
			}
			cm, _ := content[bodyType].(map[string]any)
			op.Body = &refContent{Type: bodyType, Schema: r.typeOf(cm["schema"])}
			for _, name := range r.propertyNames(cm["schema"]) {
				fields[strings.ToLower(name)] = true
			}
			body = r.example(cm["schema"], 0)
			headers = append(headers, "Content-Type: "+bodyType)
		}
	}
	responses, _ := raw["responses"].(map[string]any)
	var answer any
	for _, st := range slices.Sorted(maps.Keys(responses)) {
		rm := r.resolve(responses[st])
		resp := refResponse{Status: st, Description: r.markdown(str(rm["description"])), Error: st == "default" || st[0] >= '4'}
		content, _ := rm["content"].(map[string]any)
		for _, ct := range slices.Sorted(maps.Keys(content)) {
			cm, _ := content[ct].(map[string]any)
			resp.Content = append(resp.Content, refContent{Type: ct, Schema: r.typeOf(cm["schema"])})
			if answer == nil && st[0] == '2' && ct == "application/json" {
				answer = r.example(cm["schema"], 0)
			}
		}
		op.Responses = append(op.Responses, resp)
	}
	for _, c := range r.codes {
		if c.Param != "" && fields[strings.ToLower(c.Param)] {
			op.Codes = append(op.Codes, c)
		}
	}
	op.Example = curl(op, strings.NewReplacer(path...).Replace(p), query, headers, bodyType, body)
	if answer != nil {
		b, _ := json.MarshalIndent(answer, "", "  ")
		op.ExampleAnswer = string(b)
	}
	op.haystack = strings.ToLower(strings.Join([]string{op.Method, op.Path, op.ID, op.Tag, op.Summary, str(raw["description"])}, " "))
	return op
}

func curl(op *refOp, p string, query, headers []string, bodyType string, body any) string {
	var b strings.Builder
	b.WriteString("curl")
	if op.Method != "GET" {
		b.WriteString(" -X " + op.Method)
	}
	u := "$API" + p
	if len(query) > 0 {
		u += "?" + strings.Join(query, "&")
	}
	fmt.Fprintf(&b, " \"%s\"", u)
	if op.Auth {
		b.WriteString(" \\\n  -H \"Authorization: $KEY\"")
	}
	for _, h := range headers {
		fmt.Fprintf(&b, " \\\n  -H \"%s\"", h)
	}
	if m, ok := body.(map[string]any); ok && bodyType == "application/x-www-form-urlencoded" {
		form := url.Values{}
		for k, v := range m {
			form.Set(k, fmt.Sprint(v))
		}
		body = form.Encode()
	}
	switch v := body.(type) {
	case nil:
	case string:
		fmt.Fprintf(&b, " \\\n  -d '%s'", strings.ReplaceAll(v, "'", `'\''`))
	default:
		j, _ := json.MarshalIndent(v, "  ", "  ")
		fmt.Fprintf(&b, " \\\n  -d '%s'", strings.ReplaceAll(string(j), "'", `'\''`))
	}
	return b.String()
}

func (r *Reference) buildSchemas() {
	schemas, _ := dig(r.doc, "components", "schemas").(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(schemas)) {
		sm, _ := schemas[name].(map[string]any)
		s := refSchema{Name: name, Anchor: "schema-" + slug(name), Description: r.markdown(str(sm["description"]))}
		s.Type = r.typeOf(withoutProperties(sm))
		s.Fields = r.fields(sm, map[string]bool{})
		r.schema = append(r.schema, s)
	}
}

// withoutProperties is a schema's own type, for the head of its table.
func withoutProperties(s map[string]any) map[string]any {
	out := maps.Clone(s)
	delete(out, "properties")
	delete(out, "description")
	return out
}

// fields are an object schema's properties, with allOf's merged.
func (r *Reference) fields(s map[string]any, seen map[string]bool) []refField {
	var out []refField
	for _, part := range list(s["allOf"]) {
		if ref := str(asMap(part)["$ref"]); ref != "" {
			if seen[ref] {
				continue
			}
			seen[ref] = true
		}
		out = append(out, r.fields(r.resolve(part), seen)...)
	}
	props, _ := s["properties"].(map[string]any)
	required := strs(s["required"])
	for _, name := range slices.Sorted(maps.Keys(props)) {
		pm := asMap(props[name])
		out = append(out, refField{Name: name, Type: r.typeOf(props[name]), Required: slices.Contains(required, name),
			Description: r.markdown(str(pm["description"]))})
	}
	return out
}

func (r *Reference) propertyNames(schema any) []string {
	var out []string
	for _, f := range r.fields(r.resolve(schema), map[string]bool{}) {
		out = append(out, f.Name)
	}
	return out
}

// typeOf is a schema's type in a line of HTML: a link to a named schema,
// "array of …", "one of …", a type with its format and values.
func (r *Reference) typeOf(schema any) template.HTML {
	s := asMap(schema)
	if s == nil {
		return "any"
	}
	if ref := str(s["$ref"]); ref != "" {
		name := ref[strings.LastIndex(ref, "/")+1:]
		if strings.HasPrefix(ref, "#/components/schemas/") {
			return template.HTML(fmt.Sprintf(`<a href="/docs/api#schema-%s"><code>%s</code></a>`, template.HTMLEscapeString(slug(name)), template.HTMLEscapeString(name)))
		}
		return template.HTML("<code>" + template.HTMLEscapeString(name) + "</code>")
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf"} {
		if parts := list(s[k]); len(parts) > 0 {
			var each []string
			for _, p := range parts {
				each = append(each, string(r.typeOf(p)))
			}
			word := map[string]string{"oneOf": "one of ", "anyOf": "any of ", "allOf": "all of "}[k]
			return template.HTML(word + strings.Join(each, ", "))
		}
	}
	var types []string
	switch t := s["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		types = strs(t)
	}
	if len(types) == 0 && s["properties"] != nil {
		types = []string{"object"}
	}
	var out []string
	for _, t := range types {
		switch t {
		case "array":
			out = append(out, "array of "+string(r.typeOf(s["items"])))
		default:
			out = append(out, template.HTMLEscapeString(t))
		}
	}
	h := strings.Join(out, " or ")
	if h == "" {
		h = "any"
	}
	if f := str(s["format"]); f != "" {
		h += " (" + template.HTMLEscapeString(f) + ")"
	}
	if enum := list(s["enum"]); len(enum) > 0 {
		var vs []string
		for _, v := range enum {
			vs = append(vs, "<code>"+template.HTMLEscapeString(fmt.Sprint(v))+"</code>")
		}
		h += ": " + strings.Join(vs, ", ")
	}
	if c, ok := s["const"]; ok {
		h += ": <code>" + template.HTMLEscapeString(fmt.Sprint(c)) + "</code>"
	}
	return template.HTML(h)
}

// example is a value of a schema: its example, const, default or first
// value, else one made from its type and format (required properties only,
// or every property of an object that requires none).
func (r *Reference) example(schema any, depth int) any {
	s := r.resolve(schema)
	if s == nil || depth > 6 {
		return nil
	}
	if v, ok := s["example"]; ok {
		return v
	}
	if ex := list(s["examples"]); len(ex) > 0 {
		return ex[0]
	}
	for _, k := range []string{"const", "default"} {
		if v, ok := s[k]; ok {
			return v
		}
	}
	if enum := list(s["enum"]); len(enum) > 0 {
		return enum[0]
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		if parts := list(s[k]); len(parts) > 0 {
			return r.example(parts[0], depth+1)
		}
	}
	t := str(s["type"])
	if ts := strs(s["type"]); len(ts) > 0 {
		t = ts[0]
		if t == "null" && len(ts) > 1 {
			t = ts[1]
		}
	}
	if t == "" && (s["properties"] != nil || s["allOf"] != nil) {
		t = "object"
	}
	switch t {
	case "object":
		out := map[string]any{}
		for _, part := range list(s["allOf"]) {
			if m, ok := r.example(part, depth+1).(map[string]any); ok {
				maps.Copy(out, m)
			}
		}
		props, _ := s["properties"].(map[string]any)
		required := strs(s["required"])
		for name, p := range props {
			if len(required) == 0 || slices.Contains(required, name) {
				out[name] = r.example(p, depth+1)
			}
		}
		return out
	case "array":
		if v := r.example(s["items"], depth+1); v != nil {
			return []any{v}
		}
		return []any{}
	case "integer":
		if m, ok := s["minimum"].(float64); ok && m > 0 {
			return int64(m)
		}
		return 1000
	case "number":
		return 10.5
	case "boolean":
		return false
	case "string":
		switch str(s["format"]) {
		case "uuid":
			return "0190f3c2-7c1e-7a4e-9d2b-5f6a7b8c9d0e"
		case "date-time":
			return "2026-01-15T10:00:00Z"
		case "date":
			return "2026-01-15"
		case "uri", "url":
			return "https://shop.example/return"
		case "email":
			return "shopper@example.com"
		}
		return "string"
	}
	return nil
}

// resolve follows a $ref (one or more) to its object.
func (r *Reference) resolve(v any) map[string]any {
	m := asMap(v)
	for i := 0; m != nil && i < 10; i++ {
		ref := str(m["$ref"])
		if !strings.HasPrefix(ref, "#/") {
			return m
		}
		var at any = r.doc
		for _, part := range strings.Split(ref[2:], "/") {
			at = asMap(at)[strings.NewReplacer("~1", "/", "~0", "~").Replace(part)]
		}
		m = asMap(at)
	}
	return m
}

// markdown renders a description (the document's descriptions are
// CommonMark, as OpenAPI says).
func (r *Reference) markdown(s string) template.HTML {
	if s == "" {
		return ""
	}
	var buf bytes.Buffer
	if err := r.md.Renderer().Render(&buf, []byte(s), r.md.Parser().Parse(text.NewReader([]byte(s)))); err != nil {
		return template.HTML(template.HTMLEscapeString(s))
	}
	return template.HTML(buf.String()) // goldmark escapes text and drops raw HTML
}

// refPage is what templates/api.html draws.
type refPage struct {
	Query   string
	Tags    []refTag
	Count   int
	Total   int
	Schemas []refSchema
	Codes   []errorCode
}

// Search is the tags with the operations whose text holds every word of q
// (every operation when q is blank), how many match, and the schemas and
// error codes (all of them without a query; those whose name holds a word
// of it with one).
func (r *Reference) search(q string) refPage {
	words := strings.Fields(strings.ToLower(q))
	page := refPage{Query: q}
	for _, t := range r.tags {
		page.Total += len(t.Ops)
		keep := t
		keep.Ops = slices.DeleteFunc(slices.Clone(t.Ops), func(op *refOp) bool {
			for _, w := range words {
				if !strings.Contains(op.haystack, w) {
					return true
				}
			}
			return false
		})
		if len(keep.Ops) > 0 {
			page.Tags = append(page.Tags, keep)
			page.Count += len(keep.Ops)
		}
	}
	any := func(name string) bool {
		if len(words) == 0 {
			return true
		}
		for _, w := range words {
			if strings.Contains(strings.ToLower(name), w) {
				return true
			}
		}
		return false
	}
	for _, s := range r.schema {
		if any(s.Name) {
			page.Schemas = append(page.Schemas, s)
		}
	}
	for _, c := range r.codes {
		if any(c.Code) {
			page.Codes = append(page.Codes, c)
		}
	}
	return page
}

// API is the /docs/api page, narrowed to q.
func (s *Site) API(q string) ([]byte, error) {
	return s.draw("api.html", layoutData{Title: "API reference", Nav: "api", Body: s.ref.search(q)})
}

// slug is a name as an HTML id.
func slug(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_':
			b.WriteRune(c)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }
func list(v any) []any           { l, _ := v.([]any); return l }
func str(v any) string           { s, _ := v.(string); return s }

func strs(v any) []string {
	var out []string
	for _, x := range list(v) {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func dig(v any, keys ...string) any {
	for _, k := range keys {
		v = asMap(v)[k]
	}
	return v
}

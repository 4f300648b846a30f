package httpapi

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/version"
)

// DefaultMaxString is the longest string (in characters, as JSON Schema's
// maxLength counts) the strict decoder accepts anywhere in a request body,
// unless the field's `maxlen:"N"` tag sets its own maximum. The tag applies
// to the field's string, to each string of a slice or map field, and to
// every string inside a json.RawMessage or `any` field; a map's keys take
// `maxkey:"N"` (else the default). The OpenAPI document states each maximum (maxLength), and a test
// checks the two agree.
const DefaultMaxString = 256

// The strict decoder is github.com/go-json-experiment/json (the future
// encoding/json/v2), not a hand-written pre-pass: it is the one reader of the
// bytes, so what it refuses is exactly what a proxy or risk layer could read
// differently. Its rules:
//
//   - Names match exactly (case-sensitive); a name not in the type is a 400
//     `parameter_unknown`; a name twice in one object, at any depth (free-form
//     objects included), is a 400 `parameter_duplicate` naming it.
//   - Strings are valid UTF-8: invalid bytes and lone surrogate escapes
//     ("\ud800") are a 400, never replaced by U+FFFD.
//   - null is refused everywhere: the body itself, an object, a string, a
//     number, a list, a map value, optional fields (leave an optional field
//     out rather than send null) and values inside free-form objects
//     (json.RawMessage, `any`). No request schema declares a nullable field,
//     and "absent" has one spelling.
//   - An integer is written without a fraction or an exponent: 761.0 and
//     7.61e2 are a 400 `parameter_invalid_type` (JSON Schema's "integer"
//     would accept them, but readers disagree on them), and a value out of
//     the field's range (int64 for amounts) is a 400 `parameter_invalid`.
//     Every number a request documents is an integer, so numbers inside
//     free-form values (json.RawMessage, `any`: browserInfo.colorDepth) follow
//     the same rule, within int64; only a typed float field (none today)
//     would take a fraction.
//   - Nothing may follow the JSON value but white space.
//
// After decoding, every string (keys included) passes the string rule
// (checkString): its maximum length, no C0 control character and no
// bidirectional override or isolate, unless its field's `chars:"text"` tag
// allows tab, line breaks and bidi controls in human-written text.
var decodeOptions = json.JoinOptions(
	json.RejectUnknownMembers(true),
	json.MatchCaseInsensitiveNames(false),
	jsontext.AllowDuplicateNames(false),
	jsontext.AllowInvalidUTF8(false),
	json.WithUnmarshalers(json.UnmarshalFromFunc(strictValue)),
)

// The errors strictValue reports.
var (
	errNull       = errors.New("null is not allowed here")
	errNotInteger = errors.New("not an integer")
	errRange      = errors.New("out of range")
)

// strictValue runs before every value is decoded: a null is an error, and a
// number into a free-form value (an interface) must be an integer in int64's
// range, kept as an int64; anything else goes on to the default decoding (errors.ErrUnsupported
// says "not mine"), where typed integers get the same rule.
func strictValue(dec *jsontext.Decoder, v any) error {
	switch dec.PeekKind() {
	case 'n':
		return errNull
	case '0':
		p, ok := v.(*any)
		if !ok {
			return errors.ErrUnsupported
		}
		lit, err := dec.ReadValue()
		if err != nil {
			return err
		}
		if strings.ContainsAny(string(lit), ".eE") {
			return errNotInteger
		}
		n, err := strconv.ParseInt(string(lit), 10, 64)
		if err != nil {
			return errRange
		}
		// Exact: an int64, never a float64 (which rounds past 2^53), so a
		// free-form value is stored and echoed as sent.
		*p = n
		return nil
	}
	return errors.ErrUnsupported
}

// Decode reads the request body into v strictly (see decodeOptions): a
// missing body, malformed JSON, a duplicate or unknown name, a wrong type, a
// null, trailing data or a string that breaks the string rule is a 400 that
// names the field by its JSON path.
//
// A field added in a dated version after the request's (version.AddField)
// is unknown to that request: sending it is the same 400
// parameter_unknown, naming the version that added it.
func (r *Request) Decode(v any) error {
	if len(bytes.TrimSpace(r.Body)) == 0 {
		return apierr.New(CodeBodyMissing, "a JSON request body is required")
	}
	if err := DecodeStrict(r.Body, v); err != nil {
		return err
	}
	return checkAddedFields(r.Body, r.Version, reflect.TypeOf(v))
}

// checkAddedFields refuses the fields of body that version v does not have
// yet (version.Absent): the decoder took them, as the current version does,
// so only their presence is looked up here, and only for request types with
// such fields.
func checkAddedFields(body []byte, v string, t reflect.Type) error {
	for _, f := range version.Absent(v, t) {
		if !jsonHas(body, strings.Split(f.Name, ".")) {
			continue
		}
		return apierr.New(apierr.CodeParameterUnknown, "unknown field %q in version %s: it exists from version %s (send Service-Version: %s or later to use it)",
			f.Name, v, f.Version, f.Version).WithParam(f.Name)
	}
	return nil
}

// jsonHas reports whether the JSON object body holds path (object names,
// outermost first). body was decoded strictly already, so it is valid.
func jsonHas(body []byte, path []string) bool {
	var obj map[string]jsontext.Value
	if json.Unmarshal(body, &obj) != nil {
		return false
	}
	val, ok := obj[path[0]]
	if !ok || len(path) == 1 {
		return ok
	}
	return jsonHas(val, path[1:])
}

// DecodeStrict is Decode on raw bytes, for bodies that are not the request's.
func DecodeStrict(body []byte, v any) error {
	if err := json.Unmarshal(body, v, decodeOptions); err != nil {
		return decodeError(err, reflect.TypeOf(v))
	}
	return walkStrings(reflect.ValueOf(v), "", fieldRule{max: DefaultMaxString, keyMax: DefaultMaxString})
}

var rawMessageType = reflect.TypeFor[stdjson.RawMessage]()

// fieldRule is what a field's tags say about its strings.
type fieldRule struct {
	max, keyMax int  // maxlen, maxkey
	text        bool // chars:"text": tab, CR, LF and bidi controls allowed
}

func ruleOf(f reflect.StructField) fieldRule {
	r := fieldRule{max: tagLimit(f, "maxlen"), keyMax: tagLimit(f, "maxkey")}
	switch f.Tag.Get("chars") {
	case "":
	case "text":
		r.text = true
	default:
		panic(fmt.Sprintf("httpapi: bad chars tag on field %s (only \"text\")", f.Name))
	}
	return r
}

func tagLimit(f reflect.StructField, name string) int {
	tag := f.Tag.Get(name)
	if tag == "" {
		return DefaultMaxString
	}
	n, err := strconv.Atoi(tag)
	if err != nil || n < 1 {
		panic(fmt.Sprintf("httpapi: bad %s tag on field %s", name, f.Name))
	}
	return n
}

// walkStrings checks every string of a decoded value against the string
// rule, naming the first one that breaks it by its JSON path:
// lineItems[2].description, metadata.key (a key is named by its map).
func walkStrings(v reflect.Value, path string, rule fieldRule) error {
	var steps [8]pathStep
	w := walker{base: path, steps: steps[:0]}
	return w.walk(v, rule)
}

// walker is one walkStrings: the JSON path of the value being walked is
// kept as steps and made a string only when a string breaks the rule (every
// string of every request passes through walk, and almost all pass).
type walker struct {
	base  string // the root's path
	steps []pathStep
}

// pathStep is a name (path.name, a field or a map key) or an index
// (path[index]).
type pathStep struct {
	name  string
	index int
	isIdx bool
}

// path is the JSON path joined as join and "%s[%d]" join it.
func (w *walker) path() string {
	p := w.base
	for _, s := range w.steps {
		if s.isIdx {
			p = fmt.Sprintf("%s[%d]", p, s.index)
		} else {
			p = join(p, s.name)
		}
	}
	return p
}

// structField is what walk needs of one field of a struct type: computed
// once per type (reflect.StructTag lookups on every request were a
// measurable share of decoding).
type structField struct {
	index int
	name  string // "" for an embedded struct without a JSON name: its fields are promoted
	rule  fieldRule
}

var structFields sync.Map // reflect.Type -> []structField

func fieldsOf(t reflect.Type) []structField {
	if fs, ok := structFields.Load(t); ok {
		return fs.([]structField)
	}
	var fs []structField
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue // an embedded struct's fields are promoted even when its type is unexported
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if !f.Anonymous || name != "" {
			if name == "" {
				name = f.Name
			}
		} else {
			name = ""
		}
		fs = append(fs, structField{index: i, name: name, rule: ruleOf(f)})
	}
	structFields.Store(t, fs)
	return fs
}

func (w *walker) walk(v reflect.Value, rule fieldRule) error {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return w.walk(v.Elem(), rule)
	case reflect.String:
		if checkString(v.String(), "", rule.max, rule.text, false) == nil {
			return nil
		}
		return checkString(v.String(), w.path(), rule.max, rule.text, false)
	case reflect.Struct:
		for _, f := range fieldsOf(v.Type()) {
			if f.name == "" {
				if err := w.walk(v.Field(f.index), f.rule); err != nil {
					return err
				}
				continue
			}
			if err := w.step(pathStep{name: f.name}, v.Field(f.index), f.rule); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type() == rawMessageType {
			return w.checkRaw(v.Bytes(), rule)
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil // bytes (base64 in JSON) are no string field
		}
		for i := range v.Len() {
			if err := w.step(pathStep{index: i, isIdx: true}, v.Index(i), rule); err != nil {
				return err
			}
		}
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		inner := fieldRule{max: rule.max, keyMax: DefaultMaxString, text: rule.text}
		for _, k := range keys {
			if k.Kind() == reflect.String {
				if checkString(k.String(), "", rule.keyMax, false, true) != nil {
					return checkString(k.String(), w.path(), rule.keyMax, false, true)
				}
			}
			// A nested map's values keep the field's maximum; its keys
			// take the default, as the OpenAPI document states.
			if err := w.step(pathStep{name: k.String()}, v.MapIndex(k), inner); err != nil {
				return err
			}
		}
	}
	return nil
}

// step walks v one step below the current path.
func (w *walker) step(s pathStep, v reflect.Value, rule fieldRule) error {
	w.steps = append(w.steps, s)
	err := w.walk(v, rule)
	w.steps = w.steps[:len(w.steps)-1]
	return err
}

// checkRaw applies the decoder's null rule and the field's string rule
// inside a raw JSON value, whose bytes the decoder handed over after checking
// their syntax, UTF-8 and names.
func (w *walker) checkRaw(raw []byte, rule fieldRule) error {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v, decodeOptions); err != nil {
		e := apierr.As(decodeError(err, nil))
		if e.Param != "" && !strings.HasPrefix(e.Param, "[") {
			e.Param = "." + e.Param
		}
		param := w.path() + e.Param
		return &apierr.Error{Kind: e.Kind, Code: e.Code, Param: param, Message: strings.Replace(e.Message, strings.TrimPrefix(e.Param, "."), param, 1)}
	}
	return w.walk(reflect.ValueOf(&v), rule)
}

// checkString is the string rule: at most limit characters; valid UTF-8; no
// C0 control character (U+0000-U+001F) and no bidirectional override or
// isolate (U+202A-U+202E, U+2066-U+2069), except tab, CR, LF and the bidi
// controls in a field marked text. A key is named by its map.
func checkString(s, param string, limit int, text, key bool) error {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			if c < 0x20 && !(text && (c == '\t' || c == '\n' || c == '\r')) {
				return badChars(param, key, "control characters (U+0000 to U+001F)")
			}
			i++
			n++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return badChars(param, key, "invalid UTF-8")
		}
		if !text && (r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069) {
			return badChars(param, key, "bidirectional override or isolate characters (U+202A to U+202E, U+2066 to U+2069)")
		}
		i += size
		n++
	}
	if n > limit {
		if key {
			return tooLongKey(param, limit)
		}
		return tooLong(param, limit)
	}
	return nil
}

func badChars(param string, key bool, what string) error {
	if param == "" {
		param = "body"
	}
	msg := fmt.Sprintf("%s must not contain %s", param, what)
	if key {
		msg = fmt.Sprintf("the keys of %s must not contain %s", param, what)
	}
	return apierr.New(apierr.CodeParameterInvalid, "%s", msg).WithParam(param)
}

func tooLongKey(param string, limit int) error {
	return apierr.New(apierr.CodeParameterInvalid, "the keys of %s must be at most %d characters", param, limit).WithParam(param)
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func tooLong(param string, limit int) error {
	if param == "" {
		param = "body"
	}
	return apierr.New(apierr.CodeParameterInvalid, "%s must be at most %d characters", param, limit).WithParam(param)
}

// decodeError turns the decoder's error into the 400 a client reads: the
// field by its JSON path (items[1].value, as walkStrings names it), and what
// to change.
func decodeError(err error, root reflect.Type) error {
	var inv *apierr.Error
	var syn *jsontext.SyntacticError
	var sem *json.SemanticError
	switch {
	case errors.As(err, &inv):
		return inv // from a custom UnmarshalJSON
	case errors.As(err, &syn):
		param, _ := fieldPath(root, syn.JSONPointer)
		msg := syn.Err.Error()
		switch {
		case errors.Is(syn.Err, jsontext.ErrDuplicateName):
			return apierr.New(apierr.CodeParameterDuplicate, "%s appears more than once in its object; send each name once", param).WithParam(param)
		case strings.Contains(msg, "UTF-8") || strings.Contains(msg, "surrogate"):
			if param == "" {
				param = "body"
			}
			return apierr.New(apierr.CodeParameterInvalid, "%s is not valid UTF-8 (invalid bytes or a lone surrogate escape)", param).WithParam(param)
		case strings.Contains(msg, "after top-level value"):
			return apierr.New(CodeBodyInvalid, "unexpected data after the JSON body")
		case strings.Contains(msg, "unexpected EOF"):
			return apierr.New(CodeBodyInvalid, "the JSON body ends too early")
		}
		return apierr.New(CodeBodyInvalid, "malformed JSON at byte %d: %s", syn.ByteOffset, msg)
	case errors.As(err, &sem):
		return semanticError(sem, root)
	}
	return apierr.New(CodeBodyInvalid, "the body is not valid JSON: %s", err.Error())
}

func semanticError(sem *json.SemanticError, root reflect.Type) error {
	param, hint := fieldPath(root, sem.JSONPointer)
	if errors.Is(sem.Err, json.ErrUnknownName) {
		msg := fmt.Sprintf("unknown field %q", param)
		if hint != "" {
			msg += fmt.Sprintf("; names are case-sensitive: did you mean %q?", hint)
		}
		return apierr.New(apierr.CodeParameterUnknown, "%s", msg).WithParam(param)
	}
	if param == "" {
		if errors.Is(sem.Err, errNull) {
			return apierr.New(CodeBodyInvalid, "the body must be a JSON object, not null")
		}
		return apierr.New(CodeBodyInvalid, "the body must be a JSON object")
	}
	want := "object"
	if sem.GoType != nil {
		want = jsonType(sem.GoType)
	}
	integer := want == "integer" && sem.JSONKind == '0'
	switch {
	case errors.Is(sem.Err, errNull):
		return apierr.New(apierr.CodeParameterInvalidType, "%s must not be null; leave an optional field out instead", param).WithParam(param)
	case errors.Is(sem.Err, errRange), integer && (errors.Is(sem.Err, strconv.ErrRange) || strings.Contains(fmt.Sprint(sem.Err), "out of range")):
		return apierr.New(apierr.CodeParameterInvalid, "%s is out of range for a %s", param, integerRange(sem.GoType)).WithParam(param)
	case errors.Is(sem.Err, errNotInteger), integer:
		return apierr.New(apierr.CodeParameterInvalidType, "%s must be an integer written without a fraction or an exponent (761, not 761.0 or 7.61e2)", param).WithParam(param)
	}
	if sem.JSONKind != 0 {
		return apierr.New(apierr.CodeParameterInvalidType, "%s must be of type %s, not %s", param, want, kindName(sem.JSONKind)).WithParam(param)
	}
	return apierr.New(apierr.CodeParameterInvalid, "%s is invalid: %v", param, sem.Err).WithParam(param)
}

func integerRange(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() == reflect.Interface {
		return "64-bit integer"
	}
	if t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uintptr {
		return fmt.Sprintf("%d-bit unsigned integer", t.Bits())
	}
	return fmt.Sprintf("%d-bit integer", t.Bits())
}

func kindName(k jsontext.Kind) string {
	switch k {
	case 't', 'f':
		return "boolean"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return k.String()
}

func jsonType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		if t == rawMessageType {
			return "JSON value"
		}
		return "array"
	}
	return "object"
}

// fieldPath turns a JSON Pointer (/items/1/value) into the path the other
// errors use (items[1].value), reading the Go type to tell a list index from
// an object name. hint is, for an unknown last name, the field it matches
// apart from case.
func fieldPath(root reflect.Type, ptr jsontext.Pointer) (path, hint string) {
	t := root
	for tok := range ptr.Tokens() {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		var next reflect.Type
		index := false
		switch {
		case t == nil || t.Kind() == reflect.Interface || t == rawMessageType:
			// Free-form: a number names a list item.
			_, err := strconv.Atoi(tok)
			index = err == nil
		case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
			index, next = true, t.Elem()
		case t.Kind() == reflect.Map:
			next = t.Elem()
		case t.Kind() == reflect.Struct:
			fields := jsonFields(t)
			if ft, ok := fields[tok]; ok {
				next = ft
			} else {
				for name := range fields {
					if strings.EqualFold(name, tok) {
						hint = name
					}
				}
			}
		}
		if index {
			path += "[" + tok + "]"
		} else {
			path = join(path, tok)
		}
		t = next
	}
	return path, hint
}

var fieldsCache sync.Map // reflect.Type -> map[string]reflect.Type

// jsonFields maps a struct's JSON names (embedded structs' promoted) to
// their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if m, ok := fieldsCache.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	m := map[string]reflect.Type{}
	// Breadth first: an outer field hides a promoted one of the same name.
	for level := []reflect.Type{t}; len(level) > 0; {
		var embedded []reflect.Type
		for _, t := range level {
			for i := range t.NumField() {
				f := t.Field(i)
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if name == "-" || (!f.IsExported() && !f.Anonymous) {
					continue
				}
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
					embedded = append(embedded, ft)
					continue
				}
				if name == "" {
					name = f.Name
				}
				if _, taken := m[name]; !taken {
					m[name] = f.Type
				}
			}
		}
		level = embedded
	}
	fieldsCache.Store(t, m)
	return m
}

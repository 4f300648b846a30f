package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/paygate/paygate/shared/apierr"
)

// DefaultMaxString is the longest string (in characters, as JSON Schema's
// maxLength counts) the strict decoder accepts anywhere in a request body,
// unless the field's `maxlen:"N"` tag sets its own maximum. The tag applies
// to the field's string, to each string of a slice or map field, and to
// every string inside a json.RawMessage or `any` field; a map's keys take
// `maxkey:"N"` (else the default). The OpenAPI document states each maximum (maxLength), and a test
// checks the two agree.
const DefaultMaxString = 256

// Decode reads the request body into v strictly: unknown fields, wrong types,
// malformed JSON, trailing data and strings over their maximum are 400s that
// name the field.
func (r *Request) Decode(v any) error {
	if len(bytes.TrimSpace(r.Body)) == 0 {
		return &apierr.Error{Kind: apierr.Invalid, Code: "body_missing", Message: "a JSON request body is required"}
	}
	return DecodeStrict(r.Body, v)
}

// DecodeStrict is Decode on raw bytes, for bodies that are not the request's.
func DecodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return &apierr.Error{Kind: apierr.Invalid, Code: "body_invalid", Message: "unexpected data after the JSON body"}
	}
	return checkStrings(reflect.ValueOf(v), "", DefaultMaxString)
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// checkStrings walks a decoded value and reports the first string longer
// than its maximum (limit, or a field's maxlen tag), naming it by its JSON
// path: lineItems[2].description, metadata.key.
func checkStrings(v reflect.Value, path string, limit int) error {
	return walkStrings(v, path, limit, DefaultMaxString)
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

func walkStrings(v reflect.Value, path string, limit, keyLimit int) error {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return walkStrings(v.Elem(), path, limit, keyLimit)
	case reflect.String:
		if n := utf8.RuneCountInString(v.String()); n > limit {
			return tooLong(path, limit)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() && !f.Anonymous {
				continue // an embedded struct's fields are promoted even when its type is unexported
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			fpath := path
			if !f.Anonymous || name != "" {
				if name == "" {
					name = f.Name
				}
				fpath = join(path, name)
			}
			if err := walkStrings(v.Field(i), fpath, tagLimit(f, "maxlen"), tagLimit(f, "maxkey")); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type() == rawMessageType {
			return checkRaw(v.Bytes(), path, limit)
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil // bytes (base64 in JSON) are no string field
		}
		for i := range v.Len() {
			if err := walkStrings(v.Index(i), fmt.Sprintf("%s[%d]", path, i), limit, keyLimit); err != nil {
				return err
			}
		}
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		for _, k := range keys {
			if k.Kind() == reflect.String && utf8.RuneCountInString(k.String()) > keyLimit {
				return tooLongKey(path, keyLimit)
			}
			if err := walkStrings(v.MapIndex(k), join(path, k.String()), limit, DefaultMaxString); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkRaw applies limit to every string inside a raw JSON value.
func checkRaw(raw []byte, path string, limit int) error {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil // the decoder accepted it; not this check's business
	}
	return walkStrings(reflect.ValueOf(&v), path, limit, DefaultMaxString)
}

func tooLongKey(param string, limit int) error {
	return &apierr.Error{Kind: apierr.Invalid, Code: "parameter_invalid", Param: param,
		Message: fmt.Sprintf("the keys of %s must be at most %d characters", param, limit)}
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
	return &apierr.Error{Kind: apierr.Invalid, Code: "parameter_invalid", Param: param,
		Message: fmt.Sprintf("%s must be at most %d characters", param, limit)}
}

func decodeError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var inv *apierr.Error
	switch {
	case errors.As(err, &inv):
		return inv // from a custom UnmarshalJSON
	case errors.As(err, &syn):
		return &apierr.Error{Kind: apierr.Invalid, Code: "body_invalid",
			Message: fmt.Sprintf("malformed JSON at byte %d: %s", syn.Offset, syn.Error())}
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return &apierr.Error{Kind: apierr.Invalid, Code: "body_invalid", Message: "the body must be a JSON object"}
		}
		return &apierr.Error{Kind: apierr.Invalid, Code: "parameter_invalid_type", Param: field,
			Message: fmt.Sprintf("%s must be of type %s, not %s", field, jsonType(typ.Type.Kind().String()), typ.Value)}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &apierr.Error{Kind: apierr.Invalid, Code: "body_invalid", Message: "the JSON body ends too early"}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return &apierr.Error{Kind: apierr.Invalid, Code: "parameter_unknown", Param: name,
			Message: fmt.Sprintf("unknown field %q", name)}
	default:
		return &apierr.Error{Kind: apierr.Invalid, Code: "body_invalid", Message: "the body is not valid JSON: " + err.Error()}
	}
}

func jsonType(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "integer"
	case "float32", "float64":
		return "number"
	case "slice", "array":
		return "array"
	default:
		return "object"
	}
}

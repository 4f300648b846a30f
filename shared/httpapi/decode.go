package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/paygate/paygate/shared/apierr"
)

// Decode reads the request body into v strictly: unknown fields, wrong types,
// malformed JSON and trailing data are 400s that name the field.
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
	return nil
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

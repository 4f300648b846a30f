package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/version"
)

// Response is a handler's answer. Body is marshalled as JSON and passed
// through the version changes for Kind.
type Response struct {
	Status  int
	Kind    string // resource kind for version changes; "" for none
	Body    any
	Headers http.Header
	// ContentType is the type of a body that is not JSON (Bytes: a page, a
	// script); "" means application/json.
	ContentType string
	raw         []byte // pre-rendered body (replays, Bytes)
}

// OK is a 200 with a resource of kind.
func OK(kind string, body any) *Response {
	return &Response{Status: http.StatusOK, Kind: kind, Body: body}
}

// Created is a 201 with a resource of kind.
func Created(kind string, body any) *Response {
	return &Response{Status: http.StatusCreated, Kind: kind, Body: body}
}

// Raw is a response whose body is already rendered (a replay).
func Raw(status int, body []byte) *Response { return &Response{Status: status, raw: body} }

// Bytes is a response whose body is not JSON: a page, a script, a
// stylesheet, sent as is with contentType. Its Headers may set their own
// Cache-Control (the platform's default is no-store).
func Bytes(status int, contentType string, body []byte) *Response {
	if body == nil {
		body = []byte{}
	}
	return &Response{Status: status, ContentType: contentType, raw: body}
}

// ListBody is the list convention's body.
type ListBody[T any] struct {
	Data       []T    `json:"data"`
	HasMore    bool   `json:"has_more"`
	NextCursor string `json:"next_cursor,omitempty"`
}

// cursorBinder is a list body whose next_cursor the platform binds to the
// request's list (Request.ListParams unbinds it on the next page).
type cursorBinder interface {
	bindCursor(bind func(string) string) any
}

func (b ListBody[T]) bindCursor(bind func(string) string) any {
	b.NextCursor = bind(b.NextCursor)
	return b
}

// List is a 200 with a page of resources of kind; each item gets the kind's
// version changes.
func List[T any](kind string, items []T, next string) *Response {
	if items == nil {
		items = []T{}
	}
	return &Response{Status: http.StatusOK, Kind: listKind(kind), Body: ListBody[T]{Data: items, HasMore: next != "", NextCursor: next}}
}

const listPrefix = "list:"

func listKind(k string) string { return listPrefix + k }

// render turns a response into bytes for version v.
func (s *Server) render(v string, resp *Response) ([]byte, error) {
	if resp.raw != nil {
		return resp.raw, nil
	}
	if resp.Body == nil {
		return nil, nil
	}
	b, err := marshal(resp.Body)
	if err != nil || resp.Kind == "" || !version.NeedsTransform(v) {
		return b, err
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // keep integers exact through the round trip
	if err := dec.Decode(&doc); err != nil {
		return b, nil // not an object: nothing to transform
	}
	kind := resp.Kind
	if len(kind) > len(listPrefix) && kind[:len(listPrefix)] == listPrefix {
		kind = kind[len(listPrefix):]
		items, _ := doc["data"].([]any)
		for i, it := range items {
			if m, ok := it.(map[string]any); ok {
				items[i] = version.Apply(v, version.Ctx{Kind: kind, Status: resp.Status}, m)
			}
		}
	} else {
		doc = version.Apply(v, version.Ctx{Kind: kind, Status: resp.Status}, doc)
	}
	return marshal(doc)
}

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// errorBody is the current error representation.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Type      string `json:"type"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	Param     string `json:"param,omitempty"`
	RequestID string `json:"request_id"`
}

// errorResponse renders an error as a response; internal causes stay out.
func errorResponse(e *apierr.Error, requestID string) *Response {
	msg := e.Message
	if e.Kind == apierr.Internal || msg == "" && e.Kind == apierr.Unavailable {
		msg = "something went wrong on our side; the request id identifies it"
		if e.Kind == apierr.Unavailable {
			msg = "a dependency is unavailable; retry later"
		}
	}
	return &Response{
		Status: e.Kind.Status(),
		Kind:   version.KindError,
		Body: errorBody{Error: errorDetail{
			Type: e.Kind.Type(), Code: e.CodeOrDefault(), Message: msg, Param: e.Param, RequestID: requestID,
		}},
	}
}

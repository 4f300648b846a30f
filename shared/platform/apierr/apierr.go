// Package apierr is the one error type of the service: every failure carries a
// Kind, and Kind alone decides the HTTP status (see Status). Handlers and
// services return *Error values; the HTTP layer renders them in the body of the
// caller's API version. Internal causes are logged, never echoed.
package apierr

import (
	"errors"
	"fmt"
	"net/http"
)

// Kind classifies an error. The zero value is Internal so that an error built
// without thought never leaks as a 4xx.
type Kind int

const (
	Internal            Kind = iota // 500: a bug or a broken dependency
	Invalid                         // 400: bad input, names Param
	Unauthenticated                 // 401: missing, unknown, revoked or expired key
	Forbidden                       // 403: a valid key that may not do this (e.g. live key on a test helper)
	NotFound                        // 404: missing or out of the caller's scope
	MethodNotAllowed                // 405
	Conflict                        // 409: idempotency in flight, illegal state change, lost race
	TooLarge                        // 413
	UnsupportedMedia                // 415
	IdempotencyMismatch             // 422: key reused with a different body
	Unavailable                     // 503: dependency down; safe to retry
	InsufficientFunds               // 400 with code insufficient_balance (spec §7)
	CardDeclined                    // 402-like outcomes rendered as 400 card_error
)

var status = map[Kind]int{
	Internal:            http.StatusInternalServerError,
	Invalid:             http.StatusBadRequest,
	Unauthenticated:     http.StatusUnauthorized,
	Forbidden:           http.StatusForbidden,
	NotFound:            http.StatusNotFound,
	MethodNotAllowed:    http.StatusMethodNotAllowed,
	Conflict:            http.StatusConflict,
	TooLarge:            http.StatusRequestEntityTooLarge,
	UnsupportedMedia:    http.StatusUnsupportedMediaType,
	IdempotencyMismatch: http.StatusUnprocessableEntity,
	Unavailable:         http.StatusServiceUnavailable,
	InsufficientFunds:   http.StatusBadRequest,
	CardDeclined:        http.StatusBadRequest,
}

// errType is the current body's "type" for each kind.
var errType = map[Kind]string{
	Internal:            "api_error",
	Invalid:             "invalid_request_error",
	Unauthenticated:     "authentication_error",
	Forbidden:           "invalid_request_error",
	NotFound:            "invalid_request_error",
	MethodNotAllowed:    "invalid_request_error",
	Conflict:            "invalid_request_error",
	TooLarge:            "invalid_request_error",
	UnsupportedMedia:    "invalid_request_error",
	IdempotencyMismatch: "invalid_request_error",
	Unavailable:         "api_error",
	InsufficientFunds:   "invalid_request_error",
	CardDeclined:        "card_error",
}

var kindName = [...]string{
	Internal:            "internal",
	Invalid:             "invalid",
	Unauthenticated:     "unauthenticated",
	Forbidden:           "forbidden",
	NotFound:            "not_found",
	MethodNotAllowed:    "method_not_allowed",
	Conflict:            "conflict",
	TooLarge:            "too_large",
	UnsupportedMedia:    "unsupported_media",
	IdempotencyMismatch: "idempotency_mismatch",
	Unavailable:         "unavailable",
	InsufficientFunds:   "insufficient_funds",
	CardDeclined:        "card_declined",
}

// String names the kind, for logs and the error-code table.
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindName) {
		return kindName[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Status is the one table from kind to HTTP status.
func (k Kind) Status() int {
	if s, ok := status[k]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Type is the current error body's "type".
func (k Kind) Type() string { return errType[k] }

// Error is the service's error value.
type Error struct {
	Kind    Kind
	Code    Code   // a registered code (codes.go); the zero Code takes its kind's default
	Message string // safe to show to the caller
	Param   string // the offending field (JSON path), when there is one
	Op      string // where it happened, for logs only
	Err     error  // the cause, for logs only; never rendered
}

func (e *Error) Error() string {
	msg := e.Message
	if e.Err != nil {
		if msg == "" {
			msg = e.Err.Error()
		} else {
			msg += ": " + e.Err.Error()
		}
	}
	if e.Op != "" {
		return e.Op + ": " + msg
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// CodeOrDefault returns the explicit code or the kind's default one.
func (e *Error) CodeOrDefault() string {
	if !e.Code.IsZero() {
		return e.Code.Name()
	}
	return defaultCode[e.Kind].Name()
}

// Is makes errors.Is match an error of the same kind and code as target,
// wherever it was copied or wrapped (Wrap copies): sentinel errors such as a
// package's ErrLocked are compared with errors.Is, never with ==.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Kind == e.Kind && t.CodeOrDefault() == e.CodeOrDefault()
}

// WithParam is e naming param (a field's JSON path, a header or a query
// parameter).
func (e *Error) WithParam(param string) *Error {
	e.Param = param
	return e
}

// Because is e with the operation and the cause, for logs (never rendered).
func (e *Error) Because(op string, err error) *Error {
	e.Op, e.Err = op, err
	return e
}

// New builds an error of a registered code, with its kind and the
// parameter the code names, and a caller-safe message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Kind: code.Kind(), Code: code, Param: code.Info().Param, Message: fmt.Sprintf(format, args...)}
}

// Kindf builds an error of a kind with the kind's default code (a 405, a
// 413, a 415: what the kind alone says), and a caller-safe message.
func Kindf(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// HasCode reports whether err is, or wraps, an *Error of code c.
func HasCode(err error, c Code) bool {
	var e *Error
	return errors.As(err, &e) && e.CodeOrDefault() == c.Name()
}

// Invalidf is a 400 naming the offending field.
func Invalidf(param, format string, args ...any) *Error {
	return &Error{Kind: Invalid, Code: CodeParameterInvalid, Param: param, Message: fmt.Sprintf(format, args...)}
}

// Missing is a 400 for a required field that is absent.
func Missing(param string) *Error {
	return &Error{Kind: Invalid, Code: CodeParameterMissing, Param: param, Message: fmt.Sprintf("%s is required", param)}
}

// NotFoundf is a 404; use it for foreign records too, so existence never leaks.
func NotFoundf(format string, args ...any) *Error {
	return &Error{Kind: NotFound, Message: fmt.Sprintf(format, args...)}
}

// Wrap attaches an operation and kind to a cause. An *Error cause keeps its own
// kind, code, message and param unless kind is given explicitly as non-Internal
// and the cause's own kind is a server error: the explicit kind classifies a
// failing dependency, and must not turn the caller's bad input (say, a record
// the store refuses as too large) into a 5xx.
//
// Wrap of nil is nil (an untyped nil error, never a typed nil *Error that
// compares non-nil).
func Wrap(op string, kind Kind, err error) error {
	if err == nil {
		return nil
	}
	return wrap(op, kind, err)
}

func wrap(op string, kind Kind, err error) *Error {
	var e *Error
	if errors.As(err, &e) && (kind == Internal || e.Kind.Status() < http.StatusInternalServerError) {
		c := *e
		if c.Op == "" {
			c.Op = op
		} else {
			c.Op = op + ": " + c.Op
		}
		return &c
	}
	return &Error{Kind: kind, Op: op, Err: err}
}

// KindOf reports the kind of err: Internal for anything that is not an *Error.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}

// Is reports whether err is an *Error of the given kind.
func Is(err error, kind Kind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == kind
}

// As returns err as an *Error, turning anything else into an Internal error
// whose cause is kept for logs.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Kind: Internal, Err: err}
}

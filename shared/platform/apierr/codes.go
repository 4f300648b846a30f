package apierr

import (
	"fmt"
	"regexp"
	"sort"
	"sync"
)

// Code is a registered error code: the "code" of the error body, with the
// kind (and so the HTTP status) every error of the code has, the parameter
// it names when it always names the same one, and what it means. A Code is
// made only by Register, so an error can carry no code the registry does not
// hold; the documented table of error codes is generated from the registry.
type Code struct{ info *CodeInfo }

// CodeInfo is one registry entry.
type CodeInfo struct {
	Name    string // snake_case, as the body's "code"
	Kind    Kind   // decides the status
	Param   string // the parameter every error of the code names ("" when none, or when it varies)
	Meaning string // one line, for the documented table
}

var (
	regMu    sync.RWMutex
	registry = map[string]*CodeInfo{}
	// Lower-case snake case; digits allowed after the first letter.
	validName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

// Register declares a code once, at package level (var X = apierr.Register(...)),
// in the package that owns its meaning: the layer below every area that
// returns it. Declaring a name twice, or without a meaning, panics when the
// program starts, so a binary that links both declarations cannot run and the
// registry test (over every area) fails.
func Register(c CodeInfo) Code {
	if !validName.MatchString(c.Name) || c.Meaning == "" || c.Kind.String() == fmt.Sprintf("kind(%d)", int(c.Kind)) {
		panic(fmt.Sprintf("apierr: code %q needs a snake_case name, a known kind and a meaning", c.Name))
	}
	regMu.Lock()
	defer regMu.Unlock()
	if prev, dup := registry[c.Name]; dup {
		panic(fmt.Sprintf("apierr: code %q registered twice (%s and %s)", c.Name, prev.Kind, c.Kind))
	}
	info := c
	registry[c.Name] = &info
	return Code{&info}
}

// Name is the code as the body carries it ("" for the zero Code).
func (c Code) Name() string {
	if c.info == nil {
		return ""
	}
	return c.info.Name
}

func (c Code) String() string { return c.Name() }

// Kind is the kind every error of the code has.
func (c Code) Kind() Kind {
	if c.info == nil {
		return Internal
	}
	return c.info.Kind
}

// Info is the code's registry entry.
func (c Code) Info() CodeInfo {
	if c.info == nil {
		return CodeInfo{}
	}
	return *c.info
}

// IsZero reports whether c is the zero Code (an error that takes its kind's
// default code).
func (c Code) IsZero() bool { return c.info == nil }

// Codes lists the registry, ordered by status, then name: what the error
// table documents. It holds the codes of every package linked into the
// program (their declarations run at start).
func Codes() []CodeInfo {
	regMu.RLock()
	out := make([]CodeInfo, 0, len(registry))
	for _, c := range registry {
		out = append(out, *c)
	}
	regMu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		si, sj := out[i].Kind.Status(), out[j].Kind.Status()
		if si != sj {
			return si < sj
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// The kinds' default codes: an error built with a kind and no code answers
// with its kind's.
var defaultCode = map[Kind]Code{
	Internal: Register(CodeInfo{Name: "internal_error", Kind: Internal,
		Meaning: "Something failed on our side; the request id identifies it in our logs. Retrying with the same Idempotency-Key is safe."}),
	Invalid: Register(CodeInfo{Name: "invalid_request", Kind: Invalid,
		Meaning: "The request is malformed in a way no more specific code names; the message says how."}),
	Unauthenticated: Register(CodeInfo{Name: "invalid_api_key", Kind: Unauthenticated,
		Meaning: "The API key is unknown, revoked or expired."}),
	Forbidden: Register(CodeInfo{Name: "forbidden", Kind: Forbidden,
		Meaning: "The key is valid but may not do this."}),
	NotFound: Register(CodeInfo{Name: "resource_missing", Kind: NotFound,
		Meaning: "No such record for this account (another account's record answers the same)."}),
	MethodNotAllowed: Register(CodeInfo{Name: "method_not_allowed", Kind: MethodNotAllowed,
		Meaning: "The path exists but not with this method; the Allow header lists the methods it takes."}),
	Conflict: Register(CodeInfo{Name: "conflict", Kind: Conflict,
		Meaning: "The record is in a state that does not allow this change."}),
	TooLarge: Register(CodeInfo{Name: "body_too_large", Kind: TooLarge,
		Meaning: "The request body is larger than the route accepts."}),
	UnsupportedMedia: Register(CodeInfo{Name: "unsupported_media_type", Kind: UnsupportedMedia,
		Meaning: "The body is not of the Content-Type the route takes (application/json)."}),
	IdempotencyMismatch: Register(CodeInfo{Name: "idempotency_key_reused", Kind: IdempotencyMismatch,
		Meaning: "The Idempotency-Key was used before with a different request (method, path or body)."}),
	Unavailable: Register(CodeInfo{Name: "service_unavailable", Kind: Unavailable,
		Meaning: "A dependency did not answer; retry later with the same Idempotency-Key."}),
	InsufficientFunds: Register(CodeInfo{Name: "insufficient_balance", Kind: InsufficientFunds,
		Meaning: "The balance does not cover the amount."}),
	CardDeclined: Register(CodeInfo{Name: "card_declined", Kind: CardDeclined,
		Meaning: "The card was declined."}),
}

// The platform's own codes, which every area's input checks return.
var (
	CodeParameterInvalid = Register(CodeInfo{Name: "parameter_invalid", Kind: Invalid,
		Meaning: "A field, header or query parameter has a value the API does not take; param names it by its JSON path."})
	CodeParameterMissing = Register(CodeInfo{Name: "parameter_missing", Kind: Invalid,
		Meaning: "A required field, header or query parameter is absent; param names it."})
)

// Codes more than one area returns, declared here rather than in any one of
// them.
var (
	CodeParameterUnknown = Register(CodeInfo{Name: "parameter_unknown", Kind: Invalid,
		Meaning: "The body or query has a field the operation does not take (input is strict); param names it."})
	CodeParameterInvalidType = Register(CodeInfo{Name: "parameter_invalid_type", Kind: Invalid,
		Meaning: "A field has the wrong JSON type (a string for a number, a fraction for an integer); param names it."})
	CodeParameterDuplicate = Register(CodeInfo{Name: "parameter_duplicate", Kind: Invalid,
		Meaning: "A field or query parameter appears twice; param names it."})
	CodeTestModeOnly = Register(CodeInfo{Name: "test_mode_only", Kind: Forbidden,
		Meaning: "Only test-mode keys may call this (the test helpers, sandbox-only operations)."})
	CodeOriginNotAllowed = Register(CodeInfo{Name: "origin_not_allowed", Kind: Forbidden,
		Meaning: "The browser's Origin is not among those allowed for the client key or the checkout session."})
	CodeExternalRefInUse = Register(CodeInfo{Name: "external_ref_in_use", Kind: Conflict, Param: "external_ref",
		Meaning: "Another record of the account already has this external_ref."})
	CodeSessionChanged = Register(CodeInfo{Name: "session_changed", Kind: Conflict,
		Meaning: "The session changed meanwhile (another payment on a checkout session, a sign-out of a dashboard session); read it again."})
)

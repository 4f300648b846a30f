package apierr

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEveryKindHasStatusTypeAndCode(t *testing.T) {
	for k := Internal; k <= CardDeclined; k++ {
		assert.NotZero(t, k.Status(), "kind %d", k)
		assert.NotEmpty(t, k.Type(), "kind %d", k)
		assert.NotEmpty(t, (&Error{Kind: k}).CodeOrDefault(), "kind %d", k)
	}
	assert.Equal(t, http.StatusBadRequest, InsufficientFunds.Status())
	assert.Equal(t, "insufficient_balance", (&Error{Kind: InsufficientFunds}).CodeOrDefault())
	assert.Equal(t, http.StatusUnprocessableEntity, IdempotencyMismatch.Status())
	assert.Equal(t, http.StatusInternalServerError, Kind(999).Status())
}

// The tests' codes are registered once per test binary, as the service's
// own are at init: registering twice panics, so a test that registered
// them itself would fail under go test -count=2.
var (
	testTooLarge = Register(CodeInfo{Name: "apierr_test_item_too_large", Kind: Invalid, Meaning: "a test code"})
	testBusy     = Register(CodeInfo{Name: "apierr_test_busy", Kind: Conflict, Meaning: "a test code"})
	testNamed    = Register(CodeInfo{Name: "apierr_test_named", Kind: Invalid, Param: "Idempotency-Key", Meaning: "m"})
	testLocked   = Register(CodeInfo{Name: "apierr_test_locked", Kind: Forbidden, Meaning: "m"})
)

func TestWrapKeepsTheInnerKind(t *testing.T) {
	inner := Invalidf("amount", "amount is bad")
	w := As(Wrap("orders.Create", Internal, fmt.Errorf("ctx: %w", inner)))
	assert.Equal(t, Invalid, w.Kind)
	assert.Equal(t, "amount", w.Param)
	assert.Equal(t, Invalid, KindOf(w))
	// An explicit server kind reclassifies a server error, never a client one.
	tooBig := As(Wrap("checkout.commit", Unavailable, fmt.Errorf("store: %w", New(testTooLarge, "too large"))))
	assert.Equal(t, Invalid, tooBig.Kind)
	assert.Equal(t, "apierr_test_item_too_large", tooBig.Code.Name())
	down := As(Wrap("checkout.commit", Unavailable, &Error{Kind: Internal, Op: "dynamostore.Write"}))
	assert.Equal(t, Unavailable, down.Kind)
	plain := As(Wrap("x", Unavailable, errors.New("timeout")))
	assert.Equal(t, Unavailable, plain.Kind)
	assert.Equal(t, Internal, KindOf(errors.New("plain")))
	assert.Nil(t, Wrap("x", Internal, nil))
	var err error = Wrap("x", Internal, nil)
	assert.True(t, err == nil, "Wrap of nil is an untyped nil error")
	assert.True(t, Is(Missing("f"), Invalid))
	assert.Equal(t, Internal, As(errors.New("e")).Kind)
}

func TestKindString(t *testing.T) {
	for k := Internal; k <= CardDeclined; k++ {
		assert.NotContains(t, k.String(), "kind(", "kind %d has a name", int(k))
	}
	assert.Equal(t, "not_found", NotFound.String())
	assert.Equal(t, "kind(99)", Kind(99).String())
}

func TestRegisteredCodes(t *testing.T) {
	e := New(testBusy, "thing %s kept changing", "x")
	assert.Equal(t, Conflict, e.Kind)
	assert.Equal(t, "apierr_test_busy", e.CodeOrDefault())
	assert.Equal(t, "thing x kept changing", e.Message)
	i := slices.IndexFunc(Codes(), func(c CodeInfo) bool { return c.Name == "apierr_test_busy" })
	require.GreaterOrEqual(t, i, 0, "listed by Codes")
	assert.Equal(t, "a test code", Codes()[i].Meaning)
	assert.Panics(t, func() { Register(CodeInfo{Name: "apierr_test_busy", Kind: Conflict, Meaning: "again"}) })
	assert.Panics(t, func() { Register(CodeInfo{Name: "No-Snake", Kind: Conflict, Meaning: "m"}) })
	assert.Panics(t, func() { Register(CodeInfo{Name: "no_meaning", Kind: Conflict}) })
	assert.Equal(t, "Idempotency-Key", New(testNamed, "m").Param)
	// Every kind's default code is registered.
	for k := Internal; k <= CardDeclined; k++ {
		name := (&Error{Kind: k}).CodeOrDefault()
		ok := slices.ContainsFunc(Codes(), func(c CodeInfo) bool { return c.Name == name })
		assert.True(t, ok, "default code of %s", k)
	}
	codes := Codes()
	for i := 1; i < len(codes); i++ {
		assert.LessOrEqual(t, codes[i-1].Kind.Status(), codes[i].Kind.Status(), "ordered by status")
	}
}

func TestSentinelsMatchWithErrorsIs(t *testing.T) {
	errLocked := New(testLocked, "locked")
	wrapped := fmt.Errorf("sign in: %w", Wrap("dashboard.SignIn", Internal, errLocked))
	assert.True(t, errors.Is(wrapped, errLocked), "a wrapped copy is the sentinel")
	assert.True(t, HasCode(wrapped, testLocked))
	assert.False(t, errors.Is(Invalidf("x", "y"), errLocked))
}

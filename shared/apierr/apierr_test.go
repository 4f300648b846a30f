package apierr

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
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

func TestWrapKeepsTheInnerKind(t *testing.T) {
	inner := Invalidf("amount", "amount is bad")
	w := Wrap("orders.Create", Internal, fmt.Errorf("ctx: %w", inner))
	assert.Equal(t, Invalid, w.Kind)
	assert.Equal(t, "amount", w.Param)
	assert.Equal(t, Invalid, KindOf(w))
	// An explicit server kind reclassifies a server error, never a client one.
	tooBig := Wrap("checkout.commit", Unavailable, fmt.Errorf("store: %w", &Error{Kind: Invalid, Code: "item_too_large"}))
	assert.Equal(t, Invalid, tooBig.Kind)
	assert.Equal(t, "item_too_large", tooBig.Code)
	down := Wrap("checkout.commit", Unavailable, &Error{Kind: Internal, Op: "dynamostore.Write"})
	assert.Equal(t, Unavailable, down.Kind)
	plain := Wrap("x", Unavailable, errors.New("timeout"))
	assert.Equal(t, Unavailable, plain.Kind)
	assert.Equal(t, Internal, KindOf(errors.New("plain")))
	assert.Nil(t, Wrap("x", Internal, nil))
	assert.True(t, Is(Missing("f"), Invalid))
	assert.Equal(t, Internal, As(errors.New("e")).Kind)
}

package money

import (
	"errors"

	"github.com/paygate/paygate/shared/platform/apierr"
)

// Causes carried in the Err of the *apierr.Error values this package returns,
// so callers can tell failures apart with errors.Is without parsing messages.
var (
	ErrSyntax          = errors.New("money: malformed value")
	ErrNegative        = errors.New("money: negative amount")
	ErrPrecision       = errors.New("money: more decimal places than the currency allows")
	ErrRange           = errors.New("money: amount out of range")
	ErrUnknownCurrency = errors.New("money: unknown currency")
)

// invalid builds the 400 for a bad value; field may be empty and set by the
// caller later.
func invalid(field string, cause error, format string, args ...any) *apierr.Error {
	e := apierr.New(apierr.CodeParameterInvalid, format, args...).WithParam(field)
	e.Err = cause
	return e
}

// subject names the value in a message: the field when known.
func subject(field, fallback string) string {
	if field != "" {
		return field
	}
	return fallback
}

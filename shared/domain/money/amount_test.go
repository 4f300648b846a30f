package money_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/platform/apierr"
)

func TestAmountCheck(t *testing.T) {
	c, err := money.Amount{Value: 1500, Currency: "KZT"}.Check("amount")
	require.NoError(t, err)
	assert.Equal(t, "KZT", c.Code())
	for _, bad := range []struct {
		a     money.Amount
		param string
	}{
		{money.Amount{Value: 1}, "amount.currency"},
		{money.Amount{Value: 1, Currency: "kzt"}, "amount.currency"},
		{money.Amount{Value: 1, Currency: "XXX"}, "amount.currency"},
		{money.Amount{Value: 0, Currency: "EUR"}, "amount.value"},
		{money.Amount{Value: -5, Currency: "EUR"}, "amount.value"},
		{money.Amount{Value: money.MaxMinor + 1, Currency: "EUR"}, "amount.value"},
	} {
		_, err := bad.a.Check("amount")
		e := apierr.As(err)
		assert.Equal(t, apierr.Invalid, e.Kind, "%+v", bad.a)
		assert.Equal(t, bad.param, e.Param, "%+v", bad.a)
	}
}

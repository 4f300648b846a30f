package checkout_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/money"
)

// TestSessionAmountBounds: amounts are integer minor units from 0 to
// money.MaxMinor; int64's edges and line-item amounts past the maximum are
// 400s naming the field, never a 5xx; the maximum itself is accepted.
func TestSessionAmountBounds(t *testing.T) {
	e := newEnv(t)
	ok := e.Do("POST", "/v2/sessions", sessionBody(e, map[string]any{"amount": map[string]any{"value": money.MaxMinor, "currency": "EUR"}}))
	require.Equal(t, 201, ok.Status, "%s", ok.Body)
	for _, tc := range []struct {
		extra map[string]any
		param string
	}{
		{map[string]any{"amount": map[string]any{"value": money.MaxMinor + 1, "currency": "EUR"}}, "amount.value"},
		{map[string]any{"amount": map[string]any{"value": int64(math.MaxInt64), "currency": "EUR"}}, "amount.value"},
		{map[string]any{"amount": map[string]any{"value": int64(math.MinInt64), "currency": "EUR"}}, "amount.value"},
		{map[string]any{"lineItems": []any{map[string]any{"quantity": 1, "amountIncludingTax": money.MaxMinor + 1}}}, "lineItems"},
		{map[string]any{"lineItems": []any{map[string]any{"quantity": int64(math.MaxInt64), "amountIncludingTax": 100}}}, "lineItems"},
		{map[string]any{"lineItems": []any{map[string]any{"quantity": 1, "taxAmount": int64(math.MinInt64)}}}, "lineItems"},
	} {
		r := e.Do("POST", "/v2/sessions", sessionBody(e, tc.extra))
		require.Equal(t, 400, r.Status, "%v: %s", tc.extra, r.Body)
		require.Equal(t, tc.param, r.Err(t)["param"], "%v", tc.extra)
	}
}

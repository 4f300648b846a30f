package applepay_test

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/pay/walletpay/applepay"
)

// TestNumericCodes: every code of the table is one the platform takes, each
// numeric code names one currency, and the well-known ones are right.
func TestNumericCodes(t *testing.T) {
	for alpha, num := range map[string]string{"USD": "840", "EUR": "978", "KZT": "398", "GBP": "826", "JPY": "392", "RUB": "643"} {
		got, ok := applepay.NumericCode(alpha)
		assert.True(t, ok)
		assert.Equal(t, num, got)
		back, ok := applepay.CurrencyOf(num)
		assert.True(t, ok)
		assert.Equal(t, alpha, back)
	}
	three := regexp.MustCompile(`^[0-9]{3}$`)
	for _, alpha := range applepay.Currencies() {
		_, err := money.ParseCurrency(alpha)
		assert.NoError(t, err, alpha)
		num, _ := applepay.NumericCode(alpha)
		assert.Regexp(t, three, num)
		back, _ := applepay.CurrencyOf(num)
		assert.Equal(t, alpha, back, "numeric %s names one currency", num)
	}
	_, ok := applepay.CurrencyOf("999")
	assert.False(t, ok)
}

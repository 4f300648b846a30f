package money

import "github.com/paygate/paygate/shared/platform/apierr"

// Amount is an amount of money as every resource shows and takes it:
// integer minor units of an ISO 4217 currency (DESIGN.md's convention for
// the Pay API's resources). The decoder caps currency at three characters.
type Amount struct {
	Value    int64  `json:"value"`
	Currency string `json:"currency" maxlen:"3"`
}

// Check is the rule for an amount a caller sends: a supported currency and
// a value from 1 to MaxMinor; param is the amount's JSON path ("amount").
// It returns the parsed currency. Errors: Invalid naming param.value or
// param.currency.
func (a Amount) Check(param string) (Currency, error) {
	if a.Currency == "" {
		return Currency{}, invalid(param+".currency", ErrSyntax, "%s.currency is required", param)
	}
	c, err := ParseCurrencyField(param+".currency", a.Currency)
	if err != nil {
		return Currency{}, err
	}
	if a.Value <= 0 || a.Value > MaxMinor {
		return Currency{}, invalid(param+".value", ErrRange, "%s.value must be a positive integer in minor units, at most %d", param, MaxMinor)
	}
	return c, nil
}

// CodeCurrencyNotSupported is the answer when a currency is a valid ISO 4217
// code that the operation (or the sandbox behind it) does not take.
var CodeCurrencyNotSupported = apierr.Register(apierr.CodeInfo{Name: "currency_not_supported", Kind: apierr.Invalid,
	Meaning: "The currency is valid but not one this operation takes (the sandbox wallet holds KZT and USD; a wallet token's currency must be one the platform takes)."})

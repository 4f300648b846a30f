package wallet

import (
	"unicode/utf8"

	"github.com/paygate/paygate/shared/domain/metadata"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// AuthorizeRequest is the body of POST /v1/wallet/authorize (spec §2.2).
// Pointers tell an absent field from a zero one; amount is an int64 so the
// strict decoder refuses 10.5, 1e3 and "100" naming the field.
type AuthorizeRequest struct {
	Amount         *int64  `json:"amount"`
	PhoneNumber    *string `json:"phoneNumber" maxlen:"16"`
	IIN            *string `json:"iin" maxlen:"12"`
	OrderReference *string `json:"orderReference" maxlen:"64"`
	Currency       *string `json:"currency" maxlen:"3"`
	// Metadata is the merchant's own keys (the platform's rule since
	// 2024-01-15: every resource carries a metadata object).
	Metadata map[string]string `json:"metadata" maxlen:"500" maxkey:"40"`
}

// AmountRequest is the optional body of capture and refund.
type AmountRequest struct {
	Amount *int64 `json:"amount"`
}

// Limits of the request fields, documented in the OpenAPI fragment.
const (
	// MaxAmount is 2^53: larger integers do not survive a JSON reader that
	// reads numbers as doubles (JavaScript), so they are refused.
	MaxAmount            = int64(1) << 53
	MaxOrderReferenceLen = 64
)

// validate checks the body; every error names its field. holds checks the
// currency against the provider's wallets (nil: not checked here).
func (in *AuthorizeRequest) validate(holds func(string) error) error {
	if in.Amount == nil {
		return apierr.Missing("amount")
	}
	if err := checkAmount(*in.Amount); err != nil {
		return err
	}
	if in.PhoneNumber == nil {
		return apierr.Missing("phoneNumber")
	}
	if err := CheckPhone(*in.PhoneNumber); err != nil {
		return err
	}
	if in.IIN == nil {
		return apierr.Missing("iin")
	}
	if err := CheckIIN(*in.IIN); err != nil {
		return err
	}
	if in.OrderReference == nil {
		return apierr.Missing("orderReference")
	}
	if err := checkOrderReference("orderReference", *in.OrderReference); err != nil {
		return err
	}
	if in.Currency == nil {
		return apierr.Missing("currency")
	}
	if _, err := money.ParseCurrencyField("currency", *in.Currency); err != nil {
		return err
	}
	if holds != nil {
		if err := holds(*in.Currency); err != nil {
			return err
		}
	}
	return metadata.Check(in.Metadata)
}

func checkAmount(n int64) error {
	if n < 1 || n > MaxAmount {
		return apierr.Invalidf("amount", "amount must be an integer in minor units from 1 to 2^53 (%d)", MaxAmount)
	}
	return nil
}

func checkOrderReference(param, s string) error {
	if n := utf8.RuneCountInString(s); n < 1 || n > MaxOrderReferenceLen {
		return apierr.Invalidf(param, "%s must be 1 to %d characters", param, MaxOrderReferenceLen)
	}
	return nil
}

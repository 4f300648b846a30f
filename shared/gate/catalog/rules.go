package catalog

import (
	"regexp"
	"sort"
	"unicode/utf8"

	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// DefaultFieldMaxLength bounds a customer_account value whose field sets no
// max_length.
const DefaultFieldMaxLength = 256

// invalid is a 400 of code naming param.
func invalid(param string, code apierr.Code, format string, args ...any) *apierr.Error {
	return apierr.New(code, format, args...).WithParam(param)
}

// CheckAmount validates a buyer-chosen amount (minor units) of a range
// product: within [MinAmount, MaxAmount] and on a step from MinAmount. field
// names the amount in errors (e.g. "topup_request.amount").
func (p *Product) CheckAmount(field string, amount int64) error {
	c := p.Currency()
	if !p.IsRange() {
		return invalid(field, apierr.CodeParameterInvalid, "product %d has a fixed price; it takes no amount", p.ID)
	}
	if amount < p.MinAmount || amount > p.MaxAmount {
		return invalid(field, CodeAmountOutOfRange, "%s must be from %s to %s %s", field,
			money.FormatDecimal(p.MinAmount, c), money.FormatDecimal(p.MaxAmount, c), p.CurrencyCode)
	}
	if (amount-p.MinAmount)%p.Step != 0 {
		return invalid(field, CodeAmountOffStep, "%s must be %s plus a multiple of %s %s", field,
			money.FormatDecimal(p.MinAmount, c), money.FormatDecimal(p.Step, c), p.CurrencyCode)
	}
	return nil
}

// CheckCustomerAccount validates a direct top-up's customer_account object
// against the product's fields: every required field present and a
// non-empty string, every value within its max length and matching its
// pattern, and no field the vendor does not know. field is the object's JSON
// path (e.g. "topup_request.customer_account"); errors name the sub-field.
func (p *Product) CheckCustomerAccount(field string, acct map[string]any) error {
	known := make(map[string]bool, len(p.CustomerAccount))
	for _, f := range p.CustomerAccount {
		known[f.Name] = true
		param := field + "." + f.Name
		raw, ok := acct[f.Name]
		if !ok || raw == nil {
			if f.Required {
				return apierr.Missing(param)
			}
			continue
		}
		s, ok := raw.(string)
		if !ok {
			return apierr.Invalidf(param, "%s must be a string", param)
		}
		if s == "" {
			if f.Required {
				return apierr.Missing(param)
			}
			continue
		}
		if err := f.check(param, s); err != nil {
			return err
		}
	}
	extra := make([]string, 0)
	for k := range acct {
		if !known[k] {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return apierr.Invalidf(field+"."+extra[0], "%s.%s is not a field of product %d", field, extra[0], p.ID)
	}
	return nil
}

func (f AccountField) check(param, s string) error {
	limit := f.MaxLength
	if limit <= 0 {
		limit = DefaultFieldMaxLength
	}
	if utf8.RuneCountInString(s) > limit {
		return apierr.Invalidf(param, "%s must be at most %d characters", param, limit)
	}
	if f.Pattern != "" {
		re, err := compilePattern(f.Pattern)
		if err != nil || !re.MatchString(s) {
			return apierr.Invalidf(param, "%s has the wrong format", param)
		}
	}
	return nil
}

// compilePattern anchors a field pattern so it must match the whole value.
func compilePattern(p string) (*regexp.Regexp, error) {
	return regexp.Compile(`^(?:` + p + `)$`)
}

package dashboard

import (
	"context"
	"html/template"
	"net/url"
	"slices"
	"strings"

	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/platform/listing"
)

// formState is a create or update form drawn again after the service
// refused it: what the person typed, and the service's message beside the
// field it names (a kzid rule an IIN or IBAN breaks, a missing field).
type formState struct {
	Values url.Values
	Errors map[string]string
}

// Get is a field's value as typed.
func (f formState) Get(name string) string {
	if f.Values == nil {
		return ""
	}
	return f.Values.Get(name)
}

// Err is the message of a field the service refused ("" when none).
func (f formState) Err(name string) string { return f.Errors[name] }

// Failed reports whether the form was refused.
func (f formState) Failed() bool { return len(f.Errors) > 0 }

// fieldError maps a service's Invalid error onto the form's field: params
// names the service's params (iin, payer.phone, amount.value) by the form
// field that holds them. ok is false for any other error, which the error
// page shows as it is.
func fieldError(err error, form url.Values, params map[string]string) (formState, bool) {
	e := apierr.As(err)
	if e.Kind != apierr.Invalid && e.Kind != apierr.InsufficientFunds {
		return formState{}, false
	}
	field, ok := params[e.Param]
	if !ok {
		field = "form"
	}
	return formState{Values: form, Errors: map[string]string{field: e.Message}}, true
}

// listFilter reads a list page's status filter (one of all, or "") and its
// cursor, as the API's list routes do.
func listFilter[T ~string](c *call, all []T) (status T, p listing.Params, err error) {
	q := c.r.HTTP.URL.Query()
	if st := q.Get("status"); st != "" {
		if !slices.Contains(all, T(st)) {
			return "", p, apierr.Invalidf("status", "status must be one of %v", all)
		}
		status = T(st)
	}
	return status, listing.Params{Limit: 25, Cursor: q.Get("cursor")}, nil
}

// statusList is a list page filtered by status, with the form that adds
// one (payouts, invoices, beneficiaries); the pages' templates read these
// fields.
type statusList[T any, S ~string] struct {
	Items     []T
	Statuses  []S
	Status    string
	Next      string
	NextQuery template.URL
	Form      formState
}

func newStatusList[T any, S ~string](items []T, all []S, st S, next string, form formState) statusList[T, S] {
	return statusList[T, S]{Items: items, Statuses: all, Status: string(st), Next: next,
		NextQuery: nextStatus(string(st), next), Form: form}
}

// nextStatus is a filtered list's next-page query: the status and the
// cursor.
func nextStatus(status, next string) template.URL {
	nq := url.Values{}
	if status != "" {
		nq.Set("status", status)
	}
	nq.Set("cursor", next)
	return nextQuery(nq)
}

// formAmount reads a form's amount and currency fields, as people write
// them (12.50 EUR), in minor units; errors name the API's params, so the
// form shows them beside the fields.
func formAmount(form url.Values) (value int64, currency string, err error) {
	currency = strings.ToUpper(strings.TrimSpace(form.Get("currency")))
	cur, err := money.ParseCurrencyField("amount.currency", currency)
	if err != nil {
		return 0, "", err
	}
	raw := strings.TrimSpace(form.Get("amount"))
	if raw == "" {
		return 0, "", apierr.Missing("amount.value")
	}
	value, err = money.ParseDecimalField("amount.value", raw, cur)
	if err != nil {
		return 0, "", err
	}
	if value <= 0 || value > money.MaxMinor {
		return 0, "", apierr.Invalidf("amount.value", "the amount must be above 0")
	}
	return value, cur.Code(), nil
}

// optional is a form value as a service's optional field: nil when left
// empty.
func optional(form url.Values, name string) *string {
	v := strings.TrimSpace(form.Get(name))
	if v == "" {
		return nil
	}
	return &v
}

// amountParams are the form fields of the API's amount params.
var amountParams = map[string]string{"amount": "amount", "amount.value": "amount", "amount.currency": "currency"}

// withParams joins param -> field maps.
func withParams(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// idemIn is a money form's idempotent call, as the services take it.
type idemIn = *idempotency.Call

// audit is what a money form's entry in the audit log says.
type audit struct{ action, target, detail string }

// withIdem runs fn under the form's idempotency key (the service records it
// in the change's own transaction) with the form's audit entry riding on
// that same write (Audited): a form sent again replays (replayed) and adds
// no entry. fn must make its change under the ctx it is given (the entry
// rides on it). id, when a is about a record fn creates, names it for the
// entry.
func withIdem[T any](s *Service, c *call, fields any, a audit, fn func(ctx context.Context, in idemIn) (*T, error), id func(*T) string) (*T, error) {
	idem, err := s.idemCall(c, fields)
	if err != nil {
		return nil, err
	}
	var out *T
	err = s.audited(c, a.action, a.target, a.detail, func(ctx context.Context) (string, error) {
		v, err := fn(ctx, idem)
		if err != nil {
			return "", err
		}
		out = v
		if id != nil {
			return id(v), nil
		}
		return "", nil
	})
	return out, err
}

func sortStrings(s []string) []string {
	slices.Sort(s)
	return s
}

// formFields is a form's fields as typed, without its CSRF token and key:
// what a form's idempotency fingerprint covers.
func formFields(form url.Values) string {
	v := url.Values{}
	for k, vs := range form {
		if k != "csrf" && k != "idempotency_key" {
			v[k] = vs
		}
	}
	return v.Encode()
}

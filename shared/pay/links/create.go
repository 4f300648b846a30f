package links

import (
	"context"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/language"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/metadata"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/domain/vault"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
)

// Limits (the OpenAPI fragment repeats them).
const (
	DefaultExpiry     = 24 * time.Hour
	MaxExpiry         = 90 * 24 * time.Hour
	MaxDescription    = 500
	MinOrderReference = 3  // a checkout session's reference rule: the link's
	MaxOrderReference = 80 // order reference is its sessions' reference
	MaxURL            = 1024
)

// CreateRequest is the body of POST /v1/payment-links. The optional
// strings are pointers: a field sent empty is refused (its schema allows no
// ""), one left out takes its default.
type CreateRequest struct {
	Amount         *money.Amount     `json:"amount"`
	Description    string            `json:"description" maxlen:"500"`
	OrderReference *string           `json:"order_reference" maxlen:"80"`
	ExpiresAt      *string           `json:"expires_at" maxlen:"64"`
	CustomerID     *string           `json:"customer_id" maxlen:"36"`
	Capture        *string           `json:"capture" maxlen:"9"`
	SuccessURL     *string           `json:"success_url" maxlen:"1024"`
	FailureURL     *string           `json:"failure_url" maxlen:"1024"`
	CancelURL      *string           `json:"cancel_url" maxlen:"1024"`
	ShopperLocale  *string           `json:"shopper_locale" maxlen:"16"`
	CountryCode    *string           `json:"country_code"`
	Metadata       map[string]string `json:"metadata" maxlen:"500" maxkey:"40"`
}

// Str is a pointer to s, for the optional fields of a request built in code.
func Str(s string) *string { return &s }

// val is an optional field's value: "" when it was left out.
func val(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

var localeRE = regexp.MustCompile(`^[a-z]{2,3}([-_][A-Z]{2})?$`)

func chars(s string) int { return utf8.RuneCountInString(s) }

// checkExpiry holds an expiry to (now, now+MaxExpiry].
func checkExpiry(t, now time.Time) error {
	switch {
	case !t.After(now):
		return apierr.Invalidf("expires_at", "expires_at must be later than now")
	case t.Sub(now) > MaxExpiry:
		return apierr.Invalidf("expires_at", "expires_at must be at most 90 days from now")
	}
	return nil
}

// ParseExpiry reads an RFC 3339 expires_at.
func ParseExpiry(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, apierr.Invalidf("expires_at", "expires_at must be an RFC 3339 date-time, e.g. 2024-01-15T13:00:00Z")
	}
	return t.UTC(), nil
}

// checkURL holds a redirect URL, when sent, to an absolute http(s) URL with
// a host.
func checkURL(field string, sent *string) error {
	if sent == nil {
		return nil
	}
	u := *sent
	if chars(u) > MaxURL {
		return apierr.Invalidf(field, "%s must be at most %d characters", field, MaxURL)
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" || p.User != nil {
		return apierr.Invalidf(field, "%s must be an absolute http or https URL without credentials", field)
	}
	return nil
}

func checkCountry(sent *string) error {
	if sent == nil {
		return nil
	}
	c := *sent
	reg, err := language.ParseRegion(c)
	if len(c) != 2 || strings.ToUpper(c) != c || err != nil || !reg.IsCountry() || reg.String() != c {
		return apierr.Invalidf("country_code", "country_code must be an ISO 3166-1 alpha-2 country code such as KZ")
	}
	return nil
}

// validate checks every rule and builds the new link's record.
func (in *CreateRequest) validate(c Caller) (*record, error) {
	a := in.Amount
	if a == nil {
		return nil, apierr.Missing("amount")
	}
	if a.Currency == "" {
		return nil, apierr.Missing("amount.currency")
	}
	if _, err := money.ParseCurrencyField("amount.currency", a.Currency); err != nil {
		return nil, err
	}
	if a.Value <= 0 || a.Value > money.MaxMinor {
		return nil, apierr.Invalidf("amount.value", "amount.value must be a positive integer in minor units, at most %d", money.MaxMinor)
	}
	if chars(in.Description) > MaxDescription {
		return nil, apierr.Invalidf("description", "description must be at most %d characters", MaxDescription)
	}
	if ref := in.OrderReference; ref != nil && (chars(*ref) < MinOrderReference || chars(*ref) > MaxOrderReference) {
		return nil, apierr.Invalidf("order_reference", "order_reference must have %d to %d characters", MinOrderReference, MaxOrderReference)
	}
	now := c.Now.UTC()
	exp := now.Add(DefaultExpiry)
	if in.ExpiresAt != nil {
		t, err := ParseExpiry(*in.ExpiresAt)
		if err != nil {
			return nil, err
		}
		if err := checkExpiry(t, now); err != nil {
			return nil, err
		}
		exp = t
	}
	if in.CustomerID != nil {
		if _, err := ids.ParseField("customer_id", *in.CustomerID); err != nil {
			return nil, err
		}
	}
	mode := payments.CaptureAutomatic
	if in.Capture != nil {
		mode = payments.CaptureMode(*in.Capture)
		if !slices.Contains(captureModes, mode) {
			return nil, apierr.Invalidf("capture", "capture must be automatic or manual")
		}
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"success_url", in.SuccessURL}, {"failure_url", in.FailureURL}, {"cancel_url", in.CancelURL}} {
		if err := checkURL(f.name, f.v); err != nil {
			return nil, err
		}
	}
	if in.ShopperLocale != nil && !localeRE.MatchString(*in.ShopperLocale) {
		return nil, apierr.Invalidf("shopper_locale", "shopper_locale must be a language and country code such as ru-KZ")
	}
	if err := checkCountry(in.CountryCode); err != nil {
		return nil, err
	}
	if err := metadata.Check(in.Metadata); err != nil {
		return nil, err
	}
	id := ids.NewAt(now)
	return &record{
		ID: id, AccountID: c.AccountID, MerchantAccount: c.MerchantAccount, Livemode: !c.TestMode, Status: StatusActive,
		URL: strings.TrimRight(c.BaseURL, "/") + PagePath(id), Amount: *a, Description: in.Description,
		OrderReference: val(in.OrderReference), CustomerID: val(in.CustomerID), Capture: mode, SuccessURL: val(in.SuccessURL),
		FailureURL: val(in.FailureURL), CancelURL: val(in.CancelURL), ShopperLocale: val(in.ShopperLocale), CountryCode: val(in.CountryCode),
		Metadata: in.Metadata, ExpiresAt: exp, CreatedAt: now, UpdatedAt: now,
	}, nil
}

// PagePath is the path of a link's hosted payment page.
func PagePath(id string) string { return "/pay/" + id }

// Create stores a new active link in one transaction (the link, its copy,
// its indexes and counters, and with a keyed call the idempotency record).
// The merchant's name is read once, here, for the page. Errors: Invalid
// (naming the field), Conflict (key in flight), IdempotencyMismatch,
// Unavailable; a *idempotency.Replayed when the key already holds this link.
func (s *Service) Create(ctx context.Context, c Caller, in CreateRequest) (*Link, error) {
	r, err := in.validate(c)
	if err != nil {
		return nil, err
	}
	if r.CustomerID != "" {
		// The customer must be one of the caller's (another account's is
		// as unknown as a missing one).
		if _, err := vault.New(s.st).Customer(ctx, c.AccountID, r.CustomerID); err != nil {
			if apierr.Is(err, apierr.NotFound) {
				return nil, apierr.NotFoundf("no such customer: %s", r.CustomerID).WithParam("customer_id")
			}
			return nil, err
		}
	}
	a, err := s.accounts.Get(ctx, c.AccountID)
	if err != nil {
		return nil, err
	}
	r.MerchantName = a.Name
	if r.CountryCode == "" {
		r.CountryCode = a.Country // the payment methods of the merchant's country
	}
	ops, err := r.writeOps(r.CreatedAt)
	if err != nil {
		return nil, err
	}
	view := r.View(r.CreatedAt)
	err = idempotency.Commit(ctx, s.st, c.Idem, c.outcome(true, view), ops...)
	if err != nil {
		if idempotency.FromKey(err) || apierr.KindOf(err) == apierr.Invalid {
			return nil, err
		}
		return nil, apierr.Wrap("links.Create", apierr.Unavailable, err)
	}
	return &view, nil
}

package checkout

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"time"

	"golang.org/x/text/language"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/pay/adyen"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/store"
)

// Session limits (spec §2.4, §8; Adyen's schema for the rest).
const (
	MaxReturnURL      = 1024
	MinReference      = 3
	MaxReference      = 80
	MinShopperRef     = 3
	MaxShopperRef     = 256
	DefaultExpiry     = time.Hour
	MaxExpiry         = 24 * time.Hour
	DefaultLocale     = "en-US"
	TransactionSale   = "sale"
	TransactionVerify = "validation"
)

// CreateSessionRequest is the accepted subset of CreateCheckoutSessionRequest
// plus the spec's transactionType.
type CreateSessionRequest struct {
	MerchantAccount  string            `json:"merchantAccount"`
	Amount           *Amount           `json:"amount"`
	ReturnURL        string            `json:"returnUrl" maxlen:"1024"`
	Reference        string            `json:"reference" maxlen:"80"`
	ExpiresAt        string            `json:"expiresAt"`
	CountryCode      string            `json:"countryCode"`
	ShopperReference string            `json:"shopperReference"`
	TransactionType  string            `json:"transactionType"`
	Channel          string            `json:"channel"`
	ShopperLocale    string            `json:"shopperLocale"`
	ShopperEmail     string            `json:"shopperEmail"`
	LineItems        []LineItem        `json:"lineItems"`
	Metadata         map[string]string `json:"metadata" maxlen:"500" maxkey:"40"`
	// AdditionalData: only manualCapture has a meaning here (capture.go);
	// other entries are accepted and ignored, as on payments.
	AdditionalData map[string]string `json:"additionalData"`
	// Adyen's recurring fields of a session (adyen_recurring.go): the
	// session's payments store the card as these say.
	StorePaymentMethod       bool   `json:"storePaymentMethod"`
	StorePaymentMethodMode   string `json:"storePaymentMethodMode" maxlen:"16"`
	RecurringProcessingModel string `json:"recurringProcessingModel" maxlen:"32"`
	ShopperInteraction       string `json:"shopperInteraction" maxlen:"16"`
}

var emailRE = regexp.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}`)
var localeRE = regexp.MustCompile(`^[a-z]{2,3}([-_][A-Z]{2})?$`)

// containsPersonalData reports whether s, raw or URL-decoded (once or
// twice), carries an e-mail address or the given shopper e-mail.
func containsPersonalData(s, email string) bool {
	forms := []string{s}
	cur := s
	for i := 0; i < 2; i++ {
		d, err := url.QueryUnescape(cur)
		if err != nil {
			d, err = url.PathUnescape(cur)
		}
		if err != nil || d == cur {
			break
		}
		forms = append(forms, d)
		cur = d
	}
	email = strings.ToLower(strings.TrimSpace(email))
	for _, f := range forms {
		if emailRE.MatchString(f) {
			return true
		}
		lf := strings.ToLower(f)
		if email != "" && (strings.Contains(lf, email) || strings.Contains(lf, strings.ToLower(url.QueryEscape(email)))) {
			return true
		}
	}
	return false
}

// merchantAccountOf checks a sent merchantAccount against the key's own.
func merchantAccountOf(own, sent string) (string, error) {
	if sent != "" && sent != own {
		return "", invalid("merchantAccount", adyen.CodeMerchantAccountMismatch,
			"merchantAccount %q is not the merchant account of this API key", sent)
	}
	return own, nil
}

// checkAmount validates an amount object; zero is allowed only when allowZero.
func checkAmount(a *Amount, allowZero bool) error {
	if a == nil {
		return apierr.Missing("amount")
	}
	if a.Currency == "" {
		return apierr.Missing("amount.currency")
	}
	if _, err := money.ParseCurrencyField("amount.currency", a.Currency); err != nil {
		return err
	}
	switch {
	case a.Value < 0:
		return apierr.Invalidf("amount.value", "amount.value must not be negative")
	case a.Value == 0 && !allowZero:
		return apierr.Invalidf("amount.value", "amount.value must be positive (minor units); only transactionType validation takes 0")
	case a.Value > money.MaxMinor:
		return apierr.Invalidf("amount.value", "amount.value must be at most %d (minor units)", money.MaxMinor)
	}
	return nil
}

func checkCountry(field, c string) error {
	if c == "" {
		return nil
	}
	reg, err := language.ParseRegion(c)
	if len(c) != 2 || strings.ToUpper(c) != c || err != nil || !reg.IsCountry() || reg.String() != c {
		return apierr.Invalidf(field, "%s must be an ISO 3166-1 alpha-2 country code such as NL", field)
	}
	return nil
}

func checkChannel(c string) error {
	switch c {
	case "", "iOS", "Android", "Web":
		return nil
	}
	return apierr.Invalidf("channel", "channel must be iOS, Android or Web")
}

func checkReturnURL(u, email string) error {
	if u == "" {
		return apierr.Missing("returnUrl")
	}
	if len(u) > MaxReturnURL {
		return apierr.Invalidf("returnUrl", "returnUrl must be at most %d characters", MaxReturnURL)
	}
	p, err := url.Parse(u)
	if err != nil || p.Scheme == "" || (p.Host == "" && p.Opaque == "" && p.Path == "") {
		return apierr.Invalidf("returnUrl", "returnUrl must be an absolute URL (https://... or an app scheme)")
	}
	if containsPersonalData(u, email) {
		return invalid("returnUrl", CodePersonalData, "returnUrl must not contain personal data such as an e-mail address")
	}
	return nil
}

// validate checks every rule and fills defaults into a new session.
func (in *CreateSessionRequest) validate(c Caller) (*Session, error) {
	ma, err := merchantAccountOf(c.MerchantAccount, in.MerchantAccount)
	if err != nil {
		return nil, err
	}
	tt := in.TransactionType
	switch tt {
	case "":
		tt = TransactionSale
	case TransactionSale, TransactionVerify:
	default:
		return nil, apierr.Invalidf("transactionType", "transactionType must be sale or validation")
	}
	if err := checkAmount(in.Amount, tt == TransactionVerify); err != nil {
		return nil, err
	}
	if chars(in.Reference) < MinReference {
		return nil, apierr.Invalidf("reference", "reference must have at least %d characters", MinReference)
	}
	if chars(in.Reference) > MaxReference {
		return nil, apierr.Invalidf("reference", "reference must have at most %d characters", MaxReference)
	}
	if in.ShopperEmail != "" && !emailRE.MatchString(in.ShopperEmail) {
		return nil, apierr.Invalidf("shopperEmail", "shopperEmail must be an e-mail address")
	}
	if err := checkReturnURL(in.ReturnURL, in.ShopperEmail); err != nil {
		return nil, err
	}
	now := c.Now.UTC()
	exp := now.Add(DefaultExpiry)
	if in.ExpiresAt != "" {
		t, err := time.Parse(time.RFC3339, in.ExpiresAt)
		if err != nil {
			return nil, apierr.Invalidf("expiresAt", "expiresAt must be an ISO 8601 date-time with Z or an offset, e.g. 2024-01-15T13:00:00Z")
		}
		if !t.After(now) {
			return nil, apierr.Invalidf("expiresAt", "expiresAt must be in the future")
		}
		if t.Sub(now) > MaxExpiry {
			return nil, apierr.Invalidf("expiresAt", "expiresAt must be at most 24 hours after now")
		}
		exp = t.UTC()
	}
	if err := checkCountry("countryCode", in.CountryCode); err != nil {
		return nil, err
	}
	if in.ShopperReference != "" {
		switch {
		case chars(in.ShopperReference) < MinShopperRef:
			return nil, apierr.Invalidf("shopperReference", "shopperReference must have at least %d characters", MinShopperRef)
		case chars(in.ShopperReference) > MaxShopperRef:
			return nil, apierr.Invalidf("shopperReference", "shopperReference must have at most %d characters", MaxShopperRef)
		case containsPersonalData(in.ShopperReference, in.ShopperEmail):
			return nil, invalid("shopperReference", CodePersonalData, "shopperReference must not contain personal data such as an e-mail address")
		}
	}
	if err := checkChannel(in.Channel); err != nil {
		return nil, err
	}
	locale := in.ShopperLocale
	if locale == "" {
		locale = DefaultLocale
	} else if !localeRE.MatchString(locale) {
		return nil, apierr.Invalidf("shopperLocale", "shopperLocale must be a language and country code such as en-US")
	}
	if err := checkLineItems(in.LineItems); err != nil {
		return nil, err
	}
	if err := checkMetadata(in.Metadata); err != nil {
		return nil, err
	}
	if err := checkCount("additionalData", len(in.AdditionalData)); err != nil {
		return nil, err
	}
	mode, err := captureModeOf(in.AdditionalData)
	if err != nil {
		return nil, err
	}
	rec, err := in.sessionRecurring()
	if err != nil {
		return nil, err
	}
	return &Session{
		Recurring: rec,
		ID:        "CS" + strings.ToUpper(strings.ReplaceAll(ids.New(), "-", "")), AccountID: c.AccountID, MerchantAccount: ma,
		Livemode: !c.TestMode, Amount: *in.Amount, CountryCode: in.CountryCode, Reference: in.Reference,
		ReturnURL: in.ReturnURL, ShopperReference: in.ShopperReference, ShopperEmail: in.ShopperEmail,
		ShopperLocale: locale, Channel: in.Channel, TransactionType: tt, LineItems: in.LineItems,
		Metadata: in.Metadata, CaptureMode: mode, CreatedAt: now, ExpiresAt: exp, Status: StatusActive,
	}, nil
}

// checkMetadata applies the Stripe limits the provider notes name.
func checkMetadata(md map[string]string) error {
	if len(md) > 50 {
		return apierr.Invalidf("metadata", "metadata takes at most 50 keys")
	}
	for k, v := range md {
		if k == "" || chars(k) > 40 || chars(v) > 500 {
			return apierr.Invalidf("metadata", "metadata keys must have 1 to 40 characters and values at most 500")
		}
	}
	return nil
}

// CreateSession creates a session in one transactional write (session, live
// marker and, with a keyed call, the idempotency record). Errors: Invalid,
// Conflict (key in flight), IdempotencyMismatch, Unavailable; a
// *idempotency.Replayed when the key already holds this session.
func (svc *Service) CreateSession(ctx context.Context, c Caller, in CreateSessionRequest) (*SessionResponse, error) {
	s, err := in.validate(c)
	if err != nil {
		return nil, err
	}
	sd, err := svc.sessionData(s)
	if err != nil {
		return nil, apierr.Wrap("checkout.CreateSession", apierr.Internal, err)
	}
	ops, err := s.createOps()
	if err != nil {
		return nil, err
	}
	resp := s.response(sd)
	if err := svc.commit(ctx, c, idempotency.Outcome{Created: true, Kind: KindSession, Value: resp}, ops, nil); err != nil {
		return nil, err
	}
	return &resp, nil
}

// commit writes ops through idempotency.Commit (with the record when the
// call is keyed). A replay or the key's other verdicts pass through;
// onConflict maps a failed condition on one of ops (index into ops).
func (svc *Service) commit(ctx context.Context, c Caller, out idempotency.Outcome, ops []store.Op, onConflict func(i int) error) error {
	err := idempotency.Commit(ctx, svc.st, c.Idem, out, ops...)
	if err == nil || idempotency.FromKey(err) {
		return err
	}
	if cf, ok := store.IsConditionFailed(err); ok {
		if onConflict != nil {
			return onConflict(cf.Index)
		}
		return apierr.New(store.CodeBusy, "the record changed concurrently; retry")
	}
	return apierr.Wrap("checkout.commit", apierr.Unavailable, err)
}

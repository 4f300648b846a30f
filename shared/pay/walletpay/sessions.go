package walletpay

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/pay/walletpay/applepay"
	"github.com/paygate/paygate/shared/pay/walletpay/googlepay"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// Limits of the session bodies (the OpenAPI fragment repeats them).
const (
	MaxValidationURL = 2048
	MaxDomainName    = 253
	MaxDisplayName   = 64 // Apple's limit for the merchant's name on the sheet
	MaxMerchantName  = 100
)

// domainPattern is a DNS host name of at least two labels.
var domainPattern = regexp.MustCompile(`^(?i:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.(?i:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?))+$`)

// AppleSessionRequest is the body of POST /v1/applepay/sessions: what the
// merchant's page got in onvalidatemerchant, and the page's domain.
type AppleSessionRequest struct {
	ValidationURL string `json:"validation_url" maxlen:"2048"`
	DomainName    string `json:"domain_name" maxlen:"253"`
	DisplayName   string `json:"display_name" maxlen:"64"`
}

// AppleSession answers it: Apple's merchant session, opaque, for the page's
// session.completeMerchantValidation.
type AppleSession struct {
	MerchantSession json.RawMessage `json:"merchant_session"`
	Livemode        bool            `json:"livemode"`
}

// KindAppleSession and KindGoogleSession are the resource kinds (no dated
// changes).
const (
	KindAppleSession  = "applepay_session"
	KindGoogleSession = "googlepay_session"
)

func (in *AppleSessionRequest) check() error {
	switch {
	case in.ValidationURL == "":
		return apierr.Missing("validation_url")
	case in.DomainName == "":
		return apierr.Missing("domain_name")
	case in.DisplayName == "":
		return apierr.Missing("display_name")
	case !domainPattern.MatchString(in.DomainName) || len(in.DomainName) > MaxDomainName:
		return apierr.Invalidf("domain_name", "domain_name must be the host name of your page (shop.example.com), registered for Apple Pay")
	case utf8.RuneCountInString(in.DisplayName) > MaxDisplayName:
		return apierr.Invalidf("display_name", "display_name must have 1 to %d characters", MaxDisplayName)
	}
	if _, err := applepay.CheckValidationURL(in.ValidationURL); err != nil {
		return apierr.New(CodeValidationURLNotAllowed, "validation_url must be the https URL of one of Apple Pay's gateway hosts (apple-pay-gateway.apple.com, apple-pay-gateway-cert.apple.com, ...) that onvalidatemerchant gave the page; nothing was sent").WithParam("validation_url")
	}
	return nil
}

// AppleSession asks Apple for a merchant session (live mode: Apple's
// gateway at the validation URL, with the platform's merchant identity
// certificate) or the test wallets make one (test mode: nothing is sent). A
// validation URL of any other host is refused before anything is sent, in
// both modes. Errors: Invalid (fields; validation_url_not_allowed;
// apple_pay_session_refused: Apple's 4xx, its message), Forbidden (live
// mode not configured), Unavailable (Apple unreachable, a 5xx or a redirect).
func (s *Service) AppleSession(ctx context.Context, c Caller, in AppleSessionRequest) (*AppleSession, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	req := applepay.SessionRequest{ValidationURL: in.ValidationURL, DomainName: strings.ToLower(in.DomainName), DisplayName: in.DisplayName}
	if c.TestMode {
		ms, err := s.test.AppleSession(req, s.clock())
		if err != nil {
			return nil, apierr.Wrap("walletpay.AppleSession", apierr.Internal, err)
		}
		return &AppleSession{MerchantSession: ms}, nil
	}
	live, err := s.liveConfig(ctx)
	if err != nil {
		return nil, err
	}
	if live.AppleIdentity == nil || live.AppleGateway == nil {
		return nil, connectors.Unavailable()
	}
	session, err := live.AppleGateway.Session(ctx, *live.AppleIdentity, req)
	var refused *applepay.SessionError
	switch {
	case errors.As(err, &refused):
		return nil, apierr.New(CodeApplePaySessionRefused, "Apple Pay refused the merchant session: %s", refused.Message)
	case errors.Is(err, applepay.ErrHostNotAllowed):
		return nil, apierr.Invalidf("validation_url", "validation_url is not an Apple Pay gateway URL")
	case err != nil:
		return nil, apierr.Wrap("walletpay.AppleSession", apierr.Unavailable, err)
	}
	return &AppleSession{MerchantSession: session, Livemode: true}, nil
}

// GoogleSessionRequest is the body of POST /v1/googlepay/sessions.
type GoogleSessionRequest struct {
	MerchantName string         `json:"merchant_name" maxlen:"100"`
	Amount       *AmountRequest `json:"amount"`
	CountryCode  *string        `json:"country_code" maxlen:"2"`
}

// AmountRequest is an amount as sent.
type AmountRequest struct {
	Value    *int64  `json:"value"`
	Currency *string `json:"currency" maxlen:"3"`
}

// GoogleSession is what the merchant's page passes to Google Pay: the
// environment for PaymentsClient and the PaymentDataRequest (Google Pay's
// own names) for isReadyToPay and loadPaymentData.
type GoogleSession struct {
	Environment        string                       `json:"environment"` // TEST or PRODUCTION
	PaymentDataRequest googlepay.PaymentDataRequest `json:"payment_data_request"`
	Livemode           bool                         `json:"livemode"`
}

var countryPattern = regexp.MustCompile(`^[A-Z]{2}$`)

// GoogleSession builds the PaymentDataRequest for the account: the CARD
// method with the networks and auth methods the platform takes, tokenized
// for the gateway with the account's id as gatewayMerchantId (a decode then
// refuses a token made for another account), and, with an amount, the
// transaction info. Errors: Invalid (fields), Forbidden (live mode not
// configured), Unavailable.
func (s *Service) GoogleSession(ctx context.Context, c Caller, in GoogleSessionRequest) (*GoogleSession, error) {
	if utf8.RuneCountInString(in.MerchantName) > MaxMerchantName {
		return nil, apierr.Invalidf("merchant_name", "merchant_name must have at most %d characters", MaxMerchantName)
	}
	// Optional, but not blank: one sent must be a code.
	country := ""
	if in.CountryCode != nil {
		country = *in.CountryCode
		if !countryPattern.MatchString(country) {
			return nil, apierr.Invalidf("country_code", "country_code must be an ISO 3166-1 alpha-2 code in upper case")
		}
	}
	req := googlepay.PaymentDataRequest{APIVersion: 2, APIVersionMinor: 0,
		MerchantInfo:          googlepay.MerchantInfo{MerchantName: in.MerchantName},
		AllowedPaymentMethods: []googlepay.CardMethod{googlepay.CardFor(c.AccountID)}}
	if in.Amount != nil {
		switch {
		case in.Amount.Value == nil:
			return nil, apierr.Missing("amount.value")
		case in.Amount.Currency == nil:
			return nil, apierr.Missing("amount.currency")
		case *in.Amount.Value < 1 || *in.Amount.Value > money.MaxMinor:
			return nil, apierr.Invalidf("amount.value", "amount.value must be an integer from 1 to %d (minor units of amount.currency)", money.MaxMinor)
		}
		cur, err := money.ParseCurrencyField("amount.currency", *in.Amount.Currency)
		if err != nil {
			return nil, err
		}
		req.TransactionInfo = &googlepay.TransactionInfo{TotalPriceStatus: "FINAL", TotalPrice: money.FormatDecimal(*in.Amount.Value, cur),
			CurrencyCode: cur.Code(), CountryCode: country}
	}
	out := &GoogleSession{Environment: "TEST", PaymentDataRequest: req}
	if !c.TestMode {
		live, err := s.liveConfig(ctx)
		if err != nil {
			return nil, err
		}
		if live.GoogleMerchantID == "" || len(live.GoogleRecipientKeys) == 0 {
			return nil, connectors.Unavailable()
		}
		out.Environment, out.Livemode = "PRODUCTION", true
		out.PaymentDataRequest.MerchantInfo.MerchantID = live.GoogleMerchantID
	}
	return out, nil
}

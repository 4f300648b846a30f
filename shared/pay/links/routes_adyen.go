package links

import (
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/pay/adyen"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/idempotency"
)

// The Adyen face of payment links: Adyen Checkout v71's POST /paymentLinks,
// GET /paymentLinks/{linkId} and PATCH /paymentLinks/{linkId} under /v2,
// over the same links and service methods as /v1/payment-links (one link,
// two representations: a link created on one face reads on the other). The
// handlers only translate: Adyen's request into a CreateRequest, the link
// into Adyen's PaymentLinkResponse, and the service's error params into
// Adyen's field names.

// KindAdyenLink is the resource kind of the Adyen representation (no
// version changes: the shape is Adyen's).
const KindAdyenLink = "checkout_payment_link"

// AdyenLinkRequest is the accepted subset of Adyen's PaymentLinkRequest.
type AdyenLinkRequest struct {
	Amount          *adyen.Amount          `json:"amount"`
	MerchantAccount string                 `json:"merchantAccount"`
	Reference       string                 `json:"reference" maxlen:"80"`
	Description     string                 `json:"description" maxlen:"500"`
	ExpiresAt       *string                `json:"expiresAt" maxlen:"64"`
	ManualCapture   bool                   `json:"manualCapture"`
	ReturnURL       *string                `json:"returnUrl" maxlen:"1024"`
	ShopperLocale   *string                `json:"shopperLocale" maxlen:"16"`
	CountryCode     *string                `json:"countryCode"`
	Metadata        map[string]string      `json:"metadata" maxlen:"500" maxkey:"40"`
	ApplicationInfo *adyen.ApplicationInfo `json:"applicationInfo"` // sent by Adyen's libraries; ignored
}

// AdyenLinkUpdate is Adyen's UpdatePaymentLinkRequest: the one change Adyen
// allows, to status expired.
type AdyenLinkUpdate struct {
	Status string `json:"status"`
}

// AdyenLink is Adyen's PaymentLinkResponse, the fields a link has.
type AdyenLink struct {
	ID              string            `json:"id"`
	URL             string            `json:"url"`
	Status          string            `json:"status"`
	Amount          adyen.Amount      `json:"amount"`
	MerchantAccount string            `json:"merchantAccount"`
	Reference       string            `json:"reference"`
	Description     string            `json:"description,omitempty"`
	ExpiresAt       string            `json:"expiresAt"`
	UpdatedAt       string            `json:"updatedAt"`
	ManualCapture   bool              `json:"manualCapture,omitempty"`
	ReturnURL       string            `json:"returnUrl,omitempty"`
	ShopperLocale   string            `json:"shopperLocale,omitempty"`
	CountryCode     string            `json:"countryCode,omitempty"`
	Metadata        map[string]string `json:"metadata,omitempty"`
}

// adyenStatus maps a link's status to Adyen's: paid is Adyen's completed;
// cancelled is expired, the only way Adyen ends a link early.
func adyenStatus(s Status) string {
	switch s {
	case StatusPaid:
		return "completed"
	case StatusCancelled, StatusExpired:
		return "expired"
	}
	return string(s)
}

// AdyenView is link l in Adyen's shape, for merchant account ma.
func AdyenView(l Link, ma string) AdyenLink {
	return AdyenLink{ID: l.ID, URL: l.URL, Status: adyenStatus(l.Status), Amount: adyen.Amount{Value: l.Amount.Value, Currency: l.Amount.Currency},
		MerchantAccount: ma, Reference: l.OrderReference, Description: l.Description, ExpiresAt: l.ExpiresAt.UTC().Format(time.RFC3339),
		UpdatedAt: l.UpdatedAt.UTC().Format(time.RFC3339), ManualCapture: l.Capture == payments.CaptureManual, ReturnURL: l.SuccessURL,
		ShopperLocale: l.ShopperLocale, CountryCode: l.CountryCode, Metadata: l.Metadata}
}

// adyenParams are the /v1 field names the service's errors use, and Adyen's.
var adyenParams = map[string]string{"order_reference": "reference", "expires_at": "expiresAt", "success_url": "returnUrl",
	"shopper_locale": "shopperLocale", "country_code": "countryCode", "id": "linkId"}

// adyenError names Adyen's fields in a service error.
func adyenError(err error) error {
	e := apierr.As(err)
	if e == nil {
		return err
	}
	if p, ok := adyenParams[e.Param]; ok {
		c := *e
		c.Param, c.Message = p, strings.ReplaceAll(e.Message, e.Param, p)
		return &c
	}
	return err
}

// adyenCaller is the caller of an Adyen-face request: its keyed call
// records the Adyen answer.
func (s *Service) adyenCaller(r *httpapi.Request) Caller {
	c := s.caller(r)
	c.Answer = func(created bool, l Link) idempotency.Outcome {
		return idempotency.Outcome{Created: created, Kind: KindAdyenLink, Value: AdyenView(l, c.MerchantAccount)}
	}
	return c
}

func (s *Service) adyenCreate(r *httpapi.Request) (*httpapi.Response, error) {
	var in AdyenLinkRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	switch {
	case in.MerchantAccount == "":
		return nil, apierr.Missing("merchantAccount")
	case in.MerchantAccount != r.Principal.MerchantAccount:
		return nil, apierr.New(adyen.CodeMerchantAccountMismatch, "merchantAccount %s is not the merchant account of this API key", in.MerchantAccount)
	case in.Reference == "":
		return nil, apierr.Missing("reference") // required by Adyen; optional on /v1
	}
	if in.ShopperLocale != nil && *in.ShopperLocale == "" {
		in.ShopperLocale = nil // as checkout's Adyen face: an empty locale is no locale (the browser's)
	}
	req := CreateRequest{Description: in.Description, OrderReference: &in.Reference, ExpiresAt: in.ExpiresAt,
		SuccessURL: in.ReturnURL, ShopperLocale: in.ShopperLocale, CountryCode: in.CountryCode, Metadata: in.Metadata}
	if in.Amount != nil {
		req.Amount = &money.Amount{Value: in.Amount.Value, Currency: in.Amount.Currency}
	}
	if in.ManualCapture {
		req.Capture = Str(string(payments.CaptureManual))
	}
	c := s.adyenCaller(r)
	l, err := s.Create(r.HTTP.Context(), c, req)
	if err != nil {
		return nil, adyenError(err)
	}
	return httpapi.Created(KindAdyenLink, AdyenView(*l, c.MerchantAccount)), nil
}

func adyenLinkID(r *httpapi.Request) (string, error) {
	id := r.PathValue("linkId")
	if _, err := ids.ParseField("linkId", id); err != nil {
		return "", err
	}
	return id, nil
}

func (s *Service) adyenGet(r *httpapi.Request) (*httpapi.Response, error) {
	id, err := adyenLinkID(r)
	if err != nil {
		return nil, err
	}
	l, err := s.Get(r.HTTP.Context(), r.AccountID(), id)
	if err != nil {
		return nil, adyenError(err)
	}
	return httpapi.OK(KindAdyenLink, AdyenView(*l, r.Principal.MerchantAccount)), nil
}

// adyenUpdate sets a link's status to expired: it is cancelled (/v1 shows
// cancelled), and takes no payment from then on. A link already ended
// (cancelled or expired) answers as it is; a paid one is a 409.
func (s *Service) adyenUpdate(r *httpapi.Request) (*httpapi.Response, error) {
	var in AdyenLinkUpdate
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	if in.Status != "expired" {
		return nil, apierr.Invalidf("status", "status must be expired: the one change Adyen's API allows")
	}
	id, err := adyenLinkID(r)
	if err != nil {
		return nil, err
	}
	c := s.adyenCaller(r)
	l, err := s.Get(r.HTTP.Context(), c.AccountID, id)
	if err == nil && (l.Status == StatusCancelled || l.Status == StatusExpired) {
		return httpapi.OK(KindAdyenLink, AdyenView(*l, c.MerchantAccount)), nil
	}
	if err == nil {
		l, err = s.Cancel(r.HTTP.Context(), c, id)
	}
	if err != nil {
		return nil, adyenError(err)
	}
	return httpapi.OK(KindAdyenLink, AdyenView(*l, c.MerchantAccount)), nil
}

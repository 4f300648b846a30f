package links

import (
	"net/http"
	"strings"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// APIGroup is the PaymentLinksFunction's routes (declared in APIGroup).
func (s *Service) APIGroup() httpapi.Group {
	return APIGroup.Bind(map[string]httpapi.Handler{
		"POST /v1/payment-links":                                     s.create,
		"GET /v1/payment-links":                                      s.list,
		"GET /v1/payment-links/statistics":                           s.statistics,
		"GET /v1/payment-links/by-order-reference/{order_reference}": s.byOrderReference,
		"GET /v1/payment-links/{id}":                                 s.get,
		"POST /v1/payment-links/{id}/cancel":                         s.cancel,
		"POST /v1/payment-links/{id}/expiration":                     s.expiration,
		"POST /v2/paymentLinks":                                      s.adyenCreate,
		"GET /v2/paymentLinks/{linkId}":                              s.adyenGet,
		"PATCH /v2/paymentLinks/{linkId}":                            s.adyenUpdate,
	})
}

// caller is the typed caller of an API request.
func (s *Service) caller(r *httpapi.Request) Caller {
	base := s.publicURL
	if base == "" {
		base = RequestBaseURL(r.HTTP)
	}
	return Caller{AccountID: r.AccountID(), MerchantAccount: r.Principal.MerchantAccount, TestMode: r.TestMode(),
		Now: r.Now, Idem: r.Idem(), BaseURL: base, RequestID: r.ID}
}

// PublicURLEnv names the variable that fixes the service's public address
// (https://pay.example.com), the base of every new link's url. Without it
// the address is the one the request came to: API Gateway's domain, or a
// custom domain mapped to it, or the local gateway's.
const PublicURLEnv = "PUBLIC_BASE_URL"

// RequestBaseURL is the scheme (X-Forwarded-Proto behind API Gateway) and
// host a request came to.
func RequestBaseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (s *Service) create(r *httpapi.Request) (*httpapi.Response, error) {
	var in CreateRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	l, err := s.Create(r.HTTP.Context(), s.caller(r), in)
	if err != nil {
		return nil, err
	}
	return httpapi.Created(Kind, l), nil
}

func (s *Service) get(r *httpapi.Request) (*httpapi.Response, error) {
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	l, err := s.Get(r.HTTP.Context(), r.AccountID(), id)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(Kind, l), nil
}

func (s *Service) list(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := r.ListParams()
	if err != nil {
		return nil, err
	}
	var f Filter
	if st := r.Query("status"); st != "" {
		if !Status(st).Valid() {
			return nil, apierr.Invalidf("status", "status must be one of %v", Statuses)
		}
		f.Status = Status(st)
	}
	if f.From, f.To, err = r.TimeRange("created_from", "created_to"); err != nil {
		return nil, err
	}
	items, next, err := s.List(r.HTTP.Context(), r.AccountID(), f, p)
	if err != nil {
		return nil, err
	}
	return httpapi.List(Kind, items, next), nil
}

func (s *Service) byOrderReference(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := r.ListParams()
	if err != nil {
		return nil, err
	}
	ref := r.PathValue("order_reference")
	if n := chars(ref); n < MinOrderReference || n > MaxOrderReference {
		return nil, apierr.Invalidf("order_reference", "order_reference must have %d to %d characters", MinOrderReference, MaxOrderReference)
	}
	items, next, err := s.ByOrderReference(r.HTTP.Context(), r.AccountID(), ref, p)
	if err != nil {
		return nil, err
	}
	return httpapi.List(Kind, items, next), nil
}

func (s *Service) statistics(r *httpapi.Request) (*httpapi.Response, error) {
	from, to, err := r.TimeRange("created_from", "created_to")
	if err != nil {
		return nil, err
	}
	st, err := s.Statistics(r.HTTP.Context(), r.AccountID(), from, to)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindStats, st), nil
}

// optionalBody decodes an optional body (none is the same as {}), then
// reads the link id: a malformed body is named first, as on every route.
func optionalBody(r *httpapi.Request, v any) (string, error) {
	if len(r.Body) > 0 {
		if err := r.Decode(v); err != nil {
			return "", err
		}
	}
	return r.PathID("id")
}

// CancelRequest is the optional body of a cancel (nothing to send today).
type CancelRequest struct{}

func (s *Service) cancel(r *httpapi.Request) (*httpapi.Response, error) {
	id, err := optionalBody(r, &CancelRequest{})
	if err != nil {
		return nil, err
	}
	l, err := s.Cancel(r.HTTP.Context(), s.caller(r), id)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(Kind, l), nil
}

// ExpirationRequest is the body of an expiration update.
type ExpirationRequest struct {
	ExpiresAt string `json:"expires_at" maxlen:"64"`
}

func (s *Service) expiration(r *httpapi.Request) (*httpapi.Response, error) {
	var in ExpirationRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	if in.ExpiresAt == "" {
		return nil, apierr.Missing("expires_at")
	}
	t, err := ParseExpiry(in.ExpiresAt)
	if err != nil {
		return nil, err
	}
	l, err := s.UpdateExpiration(r.HTTP.Context(), s.caller(r), id, t)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(Kind, l), nil
}

package checkout

import (
	"slices"
	"time"

	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/httpapi"
)

// MaxSessionResult bounds the ignored sessionResult query parameter.
const MaxSessionResult = 8192

// sessionResult serves GET /v2/sessions/{id}. The server's own state is the
// answer: the drop-in's sessionResult (required by Adyen, optional here) is
// accepted for compatibility and not trusted.
func (svc *Service) sessionResult(r *httpapi.Request) (*httpapi.Response, error) {
	if len(r.Query("sessionResult")) > MaxSessionResult {
		return nil, apierr.Invalidf("sessionResult", "sessionResult is too long")
	}
	s, err := svc.loadSession(r.HTTP.Context(), r.AccountID(), r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindSessionResult, s.result(r.Now)), nil
}

// result is the session as the merchant reads it at now. A payment is
// Pending only while the session waits for it: once the session expired (or
// ended otherwise) a payment still waiting can never complete it, so it is
// not listed (payments lists authorised and pending ones, as Adyen's does),
// even before a details call records its refusal.
func (s *Session) result(now time.Time) SessionResult {
	status := s.StatusAt(now)
	ps := s.Payments
	if status != StatusPaymentPending {
		ps = slices.DeleteFunc(slices.Clone(ps), func(e ResultPayment) bool { return e.ResultCode == "Pending" })
	}
	return SessionResult{ID: s.ID, Status: status, Reference: s.Reference, Payments: nonNil(ps)}
}

func nonNil(p []ResultPayment) []ResultPayment {
	if p == nil {
		return []ResultPayment{}
	}
	return p
}

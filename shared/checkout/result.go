package checkout

import (
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

func (s *Session) result(now time.Time) SessionResult {
	return SessionResult{ID: s.ID, Status: s.StatusAt(now), Reference: s.Reference, Payments: nonNil(s.Payments)}
}

func nonNil(p []ResultPayment) []ResultPayment {
	if p == nil {
		return []ResultPayment{}
	}
	return p
}

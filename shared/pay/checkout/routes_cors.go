package checkout

import (
	"net/http"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// maxSessionID is the longest session id a path may hold (the document's
// maxLength).
const maxSessionID = 64

// preflightHeaders are the headers a preflight reads, with their maxima
// (the OpenAPI document's).
var preflightHeaders = []struct {
	name string
	max  int
}{{"Origin", 256}, {"Access-Control-Request-Method", 16}, {"Access-Control-Request-Headers", 256}}

// preflight serves OPTIONS on every client path.
func (svc *Service) preflight(r *httpapi.Request) (*httpapi.Response, error) {
	for _, h := range preflightHeaders {
		if v := r.HTTP.Header.Get(h.name); len(v) > h.max {
			return nil, apierr.Invalidf(h.name, "%s must be at most %d characters", h.name, h.max)
		}
	}
	if len(r.PathValue("id")) > maxSessionID {
		return nil, apierr.NotFoundf("no such session: %s", r.PathValue("id"))
	}
	p, ok := r.Preflight()
	if !ok {
		return httpapi.Options(http.MethodPost), nil
	}
	refused := apierr.New(apierr.CodeOriginNotAllowed, "cross-origin calls to this session are not allowed from origin %q", p.Origin)
	if p.Method != http.MethodPost || !p.HeadersAllowed() {
		return nil, refused
	}
	allowed, err := svc.PreflightAllowed(r.HTTP.Context(), r.PathValue("id"), p.Origin)
	if err != nil {
		return nil, err
	}
	if !allowed {
		return nil, refused
	}
	return httpapi.Preflight(p.Origin, http.MethodPost), nil
}

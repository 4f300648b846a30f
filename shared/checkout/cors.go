package checkout

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/httpapi"
	"github.com/paygate/paygate/shared/store"
)

// The drop-in calls /v2/client/... from the merchant's page, another origin,
// with a client key and a JSON body, so the browser asks first (a CORS
// preflight: OPTIONS, with the page's Origin and the method and headers it
// wants to send, but no key). The preflight is decided by the session the
// path names: it is allowed when an active client key of the session's
// account allows the origin, the only keys whose call could then succeed.
// A missing session, an origin no such key allows, a method other than POST
// or a header the platform does not read are refused with a 403 that names
// no reason beyond "not allowed" (and carries no CORS header, so the browser
// sends nothing). Cost: GetItem (the session) and one Query (the account's
// key records). Answers to the calls themselves carry
// Access-Control-Allow-Origin only once their key allowed the origin
// (httpapi's cors.go).

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
	refused := apierr.New(apierr.Forbidden, "origin_not_allowed", "cross-origin calls to this session are not allowed from origin %q", p.Origin)
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

// PreflightAllowed reports whether an active client key of session
// sessionID's account allows origin (false for a missing session). Errors:
// Unavailable, Internal.
func (svc *Service) PreflightAllowed(ctx context.Context, sessionID, origin string) (bool, error) {
	if sessionID == "" || len(sessionID) > maxSessionID {
		return false, nil
	}
	it, err := svc.st.Get(ctx, sessionKey(sessionID))
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, apierr.Wrap("checkout.PreflightAllowed", apierr.Unavailable, err)
	}
	var s struct {
		AccountID string `json:"account_id"`
	}
	if err := json.Unmarshal(it.Data, &s); err != nil {
		return false, apierr.Wrap("checkout.PreflightAllowed", apierr.Internal, err)
	}
	return svc.keys.OriginAllowed(ctx, s.AccountID, origin)
}

package checkout

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/paygate/paygate/shared/platform/apierr"
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

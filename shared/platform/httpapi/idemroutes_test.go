package httpapi_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/wiring"
	"github.com/paygate/paygate/shared/queue/boltqueue"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// readOnlyPOSTs are the POST routes that create nothing and move no money
// (Adyen's shapes use POST for reads), or whose repeat the state refuses or
// answers the same.
var readOnlyPOSTs = map[string]string{
	"POST /v2/paymentMethods":                      "lists methods",
	"POST /v2/client/sessions/{id}/setup":          "reads a session",
	"POST /v2/client/sessions/{id}/paymentMethods": "lists methods",
	"POST /test-helpers/payments/{id}/challenge":   "test helper; a repeat is refused (409 no_challenge_pending)",
	// Adyen sends no Idempotency-Key: each notice is recorded once by its
	// own identity (connector, eventCode, pspReference, success).
	"POST /webhooks/adyen/{connector_id}":        "a resent notice finds its record and changes nothing",
	"POST /v1/applepay/sessions":                 "stores nothing: Apple's session is minutes long, a replayed one would be stale",
	"POST /v1/googlepay/sessions":                "computes the PaymentDataRequest parts",
	"POST /test-helpers/wallet-tokens/applepay":  "test helper; makes a fresh sandbox token, stores nothing",
	"POST /test-helpers/wallet-tokens/googlepay": "test helper; makes a fresh sandbox token, stores nothing",
	// The hosted page's calls take no key: no account scopes one (the link's
	// url is the capability), and none is needed.
	"POST /pay/{id}/session":                                "opens the link's one session, or answers it again",
	"POST /pay/{id}/sessions/{session_id}/setup":            "reads a session",
	"POST /pay/{id}/sessions/{session_id}/payments":         "a repeat after the link is paid is refused (409 payment_link_paid)",
	"POST /pay/{id}/sessions/{session_id}/payments/details": "details sent twice answer the same (built from the payment record)",
	// The dashboard's forms that neither create nor move anything (its
	// money and creating forms carry the form's idempotency key).
	"POST /dashboard/sign-in":                          "opens a session; a repeat opens another, as signing in twice does",
	"POST /dashboard/sign-out":                         "a repeat finds no session",
	"POST /dashboard/sign-out-everywhere":              "a repeat ends the sessions opened since, which is what it asks",
	"POST /dashboard/developers/api-keys/{id}/revoke":  "a revoked key stays revoked",
	"POST /dashboard/payout-cards/{id}/delete":         "a deleted card stays deleted (a repeat is a 404 page), as the API's DELETE",
	"POST /dashboard/developers/api-version":           "sets the default; a repeat sets the same",
	"POST /dashboard/developers/webhooks/{id}/resend":  "a resend is one more delivery by design: the merchant asks for it again",
	"POST /dashboard/settings/security/totp":           "turns the user's own second factor on or off; a repeat finds it so",
	"POST /dashboard/developers/webhooks/{id}/update":  "sets the endpoint's fields; a repeat sets the same",
	"POST /dashboard/developers/webhooks/{id}/disable": "a disabled endpoint stays disabled",
	"POST /dashboard/developers/webhooks/{id}/enable":  "an enabled endpoint stays enabled",
	"POST /dashboard/developers/events/{id}/resend":    "a resend is one more delivery by design: the merchant asks for it again",
	"POST /dashboard/switch-account":                   "moves the session to an account; a repeat finds it there",
}

// TestEveryWritingPOSTDeclaresIdempotency: a group added later cannot forget
// Idempotency-Key on a POST that creates something or moves money; with an
// inline mode, the platform also refuses its 2xx unless the service wrote the
// record through idempotency.Commit (TestInlineRoutes).
func TestEveryWritingPOSTDeclaresIdempotency(t *testing.T) {
	dir := t.TempDir()
	st, err := boltstore.Open(filepath.Join(dir, "s.db"), nil)
	require.NoError(t, err)
	defer st.Close()
	q, err := boltqueue.Open(filepath.Join(dir, "q.db"), nil)
	require.NoError(t, err)
	defer q.Close()
	d := app.WithStore(st, q, nil, nil)
	seen := 0
	for _, b := range wiring.HTTP() {
		g, err := b(d)
		require.NoError(t, err)
		for _, rt := range g.Routes {
			if rt.Method != "POST" {
				continue
			}
			seen++
			if _, ok := readOnlyPOSTs[rt.Pattern()]; ok {
				assert.Equal(t, httpapi.IdemNone, rt.Idempotency, "%s is listed as read-only", rt.Pattern())
				continue
			}
			assert.NotEqual(t, httpapi.IdemNone, rt.Idempotency, "%s (%s) must declare its Idempotency-Key handling", rt.Pattern(), g.Name)
		}
	}
	require.Greater(t, seen, len(readOnlyPOSTs))
}

package dashboard_test

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/dashboard"
)

// TestBrowserTwoStepOnAndOff: a person turns two-step sign-in on from the
// security page, and off again with a code the app shows (the session
// alone is refused).
func TestBrowserTwoStepOnAndOff(t *testing.T) {
	w := newWeb(t)
	tab := w.tab(t)
	email := w.user("", dashboard.Viewer)
	w.signIn(t, tab, email, password)
	w.open(t, tab, "/dashboard/settings/security")
	secret := text(t, tab, "#totp-secret")
	rememberSecret(secret)
	code, err := totp.GenerateCode(secret, w.Clock.Now())
	require.NoError(t, err)
	do(t, tab, chromedp.SendKeys(chromedp.CSS(`input[name=code]`), code))
	submit(t, tab, "#enable-totp")
	assert.True(t, w.totpOn(email))
	w.look(t, tab, "security-two-step-on")

	// Off without a code: refused, still on.
	submit(t, tab, "#disable-totp")
	assert.Contains(t, text(t, tab, "main"), "type the code your authenticator app shows now, or your password")
	assert.True(t, w.totpOn(email))
	w.look(t, tab, "security-two-step-off-refused")

	// Off with the next code.
	w.Clock.Advance(30 * time.Second)
	w.open(t, tab, "/dashboard/settings/security")
	code, err = totp.GenerateCode(secret, w.Clock.Now())
	require.NoError(t, err)
	do(t, tab, chromedp.SendKeys(chromedp.CSS(`#disable-totp-form input[name=current_code]`), code))
	submit(t, tab, "#disable-totp")
	assert.False(t, w.totpOn(email))
	assert.Contains(t, text(t, tab, "main"), "Add this key to an authenticator app")
}

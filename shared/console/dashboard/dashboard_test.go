package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/dashboard"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

func init() { apitest.RememberSecret(password) }

func cookieNamed(h http.Header, name string) string {
	for _, c := range h.Values("Set-Cookie") {
		if strings.HasPrefix(c, name+"=") {
			return c
		}
	}
	return ""
}

func TestSignInOpensASessionWithAStrictCookie(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		email := e.user("", dashboard.Owner)
		c := e.client()
		form := c.get("/dashboard/sign-in")
		r := c.post("/dashboard/sign-in", url.Values{"csrf": {form.csrf(t)}, "email": {strings.ToUpper(email)}, "password": {password}})
		require.Equal(t, 303, r.Status, r.Body)
		ck := cookieNamed(r.Header, dashboard.SessionCookie)
		require.NotEmpty(t, ck)
		assert.Contains(t, ck, "HttpOnly")
		assert.Contains(t, ck, "SameSite=Strict")
		assert.Contains(t, ck, "Path=/dashboard")
		assert.NotContains(t, ck, "Secure", "plain HTTP on 127.0.0.1: a Secure cookie would never come back")
		home := c.get("/dashboard")
		require.Equal(t, 200, home.Status)
		assert.Contains(t, home.Body, email)
		assert.Contains(t, home.Body, "Recent payments")
	})
}

func TestSessionCookieIsSecureOffLoopback(t *testing.T) {
	e := newEnv(t, embedded)
	email := e.user("", dashboard.Owner)
	c := e.client()
	form := c.get("/dashboard/sign-in")
	// As behind API Gateway: another host, HTTPS at the edge.
	req, _ := http.NewRequest("POST", e.URL+"/dashboard/sign-in", strings.NewReader(url.Values{"csrf": {form.csrf(t)},
		"email": {email}, "password": {password}}.Encode()))
	req.Host = "pay.example.com"
	req.Header.Set("X-Forwarded-Proto", "https")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: dashboard.PreCSRFCookie, Value: form.csrf(t)})
	res, err := http.DefaultTransport.RoundTrip(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 303, res.StatusCode)
	ck := cookieNamed(res.Header, dashboard.SessionCookie)
	for _, want := range []string{"Secure", "HttpOnly", "SameSite=Strict"} {
		assert.Contains(t, ck, want)
	}
}

func TestWrongPasswordAndUnknownEmailAnswerAlike(t *testing.T) {
	e := newEnv(t, embedded)
	email := e.user("", dashboard.Owner)
	c := e.client()
	try := func(email, pw string) *page {
		form := c.get("/dashboard/sign-in")
		return c.post("/dashboard/sign-in", url.Values{"csrf": {form.csrf(t)}, "email": {email}, "password": {pw}})
	}
	wrong := try(email, "not the password at all")
	unknown := try("nobody@example.test", "not the password at all")
	require.Equal(t, 401, wrong.Status)
	require.Equal(t, 401, unknown.Status)
	assert.Contains(t, wrong.Body, "The email, password or code is wrong.")
	assert.Contains(t, unknown.Body, "The email, password or code is wrong.")
	assert.Empty(t, cookieNamed(wrong.Header, dashboard.SessionCookie))
	assert.Equal(t, 303, c.get("/dashboard").Status, "no session")
}

func TestSignInIsRateLimitedPerEmailAndPerAddress(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		email := e.user("", dashboard.Owner)
		ctx := context.Background()
		in := func(email, pw, addr string) error {
			_, _, err := e.dash.SignIn(ctx, dashboard.SignInInput{Email: email, Password: pw, Address: addr})
			return err
		}
		// Concurrent failures each count.
		var wg sync.WaitGroup
		for i := 0; i < dashboard.MaxAttemptsPerEmail; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				assert.Equal(t, dashboard.ErrSignIn, in(email, "wrong", "192.0.2."+string(rune('1'+i))))
			}(i)
		}
		wg.Wait()
		assert.Equal(t, dashboard.ErrLocked, in(email, password, "198.51.100.7"), "locked: the right password too")
		// The lock says nothing about whether an email exists.
		ghost := "ghost@example.test"
		for i := 0; i < dashboard.MaxAttemptsPerEmail; i++ {
			assert.Equal(t, dashboard.ErrSignIn, in(ghost, "wrong", "198.51.100.8"))
		}
		assert.Equal(t, dashboard.ErrLocked, in(ghost, "wrong", "198.51.100.9"))
		// Per address: many emails from one address.
		other := e.user("", dashboard.Viewer)
		for i := 0; i < dashboard.MaxAttemptsPerAddress; i++ {
			require.Equal(t, dashboard.ErrSignIn, in("spray"+string(rune('a'+i))+"@example.test", "wrong", "203.0.113.5"))
		}
		assert.Equal(t, dashboard.ErrLocked, in(other, password, "203.0.113.5"))
		require.NoError(t, in(other, password, "203.0.113.6"), "another address is not locked")
		// The window ends.
		e.Clock.Advance(dashboard.AttemptWindow)
		require.NoError(t, in(email, password, "198.51.100.7"))
	})
}

func TestLockedSignInPageIs429AndSaysTheSameForAnyEmail(t *testing.T) {
	e := newEnv(t, embedded)
	email := e.user("", dashboard.Owner)
	c := e.client()
	post := func(email, pw string) *page {
		form := c.get("/dashboard/sign-in")
		return c.post("/dashboard/sign-in", url.Values{"csrf": {form.csrf(t)}, "email": {email}, "password": {pw}})
	}
	for i := 0; i < dashboard.MaxAttemptsPerEmail; i++ {
		require.Equal(t, 401, post(email, "wrong").Status)
		require.Equal(t, 401, post("ghost@example.test", "wrong").Status)
	}
	known, ghost := post(email, password), post("ghost@example.test", password)
	require.Equal(t, 429, known.Status)
	require.Equal(t, 429, ghost.Status)
	assert.Contains(t, known.Body, "too many failed sign-ins")
	assert.Equal(t, strings.ReplaceAll(known.Body, email, "X"), strings.ReplaceAll(strings.ReplaceAll(ghost.Body, "ghost@example.test", "X"),
		ghost.csrf(t), known.csrf(t)), "the two pages differ only in the email typed and the form's token")
}

func TestFormsWithoutTheirCSRFTokenAreRefused(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		email := e.user("", dashboard.Owner)
		c := e.client()
		csrf := c.signIn(email)
		for _, tc := range []struct{ name, token string }{{"missing", ""}, {"wrong", csrf + "x"}} {
			r := c.post("/dashboard/developers/api-version", url.Values{"csrf": {tc.token}, "version": {"2023-06-01"}})
			assert.Equal(t, 403, r.Status, tc.name)
			assert.Contains(t, r.Body, "did not come from the dashboard")
		}
		a, err := e.Deps.Accounts.Get(context.Background(), e.Account.ID)
		require.NoError(t, err)
		assert.NotEqual(t, "2023-06-01", a.DefaultVersion, "nothing changed")
		// The sign-in form has its own token (double submit).
		fresh := e.client()
		r := fresh.post("/dashboard/sign-in", url.Values{"email": {email}, "password": {password}})
		assert.Equal(t, 403, r.Status)
		assert.Empty(t, cookieNamed(r.Header, dashboard.SessionCookie))
		// Another session's token is refused too.
		other := e.client()
		other.signIn(email)
		assert.Equal(t, 403, other.post("/dashboard/developers/api-version", url.Values{"csrf": {csrf}, "version": {"2023-06-01"}}).Status)
	})
}

func TestViewerSeesNoRefundButtonAndIsRefusedThePost(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		id := e.seed("", "order-v", payments.Charged)
		c := e.client()
		csrf := c.signIn(e.user("", dashboard.Viewer))
		p := c.get("/dashboard/payments/" + id)
		require.Equal(t, 200, p.Status)
		assert.NotContains(t, p.Body, `id="refund"`)
		assert.NotContains(t, p.Body, "/refund")
		for _, path := range []string{"/dashboard/payments/" + id + "/refund", "/dashboard/payments/" + id + "/capture",
			"/dashboard/payment-links", "/dashboard/developers/api-keys", "/dashboard/developers/api-version"} {
			r := c.post(path, url.Values{"csrf": {csrf}, "idempotency_key": {"dash_k1"}, "version": {"2023-06-01"}})
			assert.Equal(t, 403, r.Status, path)
		}
		tx := e.Do("GET", "/v1/transactions/"+id, nil).Map(t)
		assert.Equal(t, "charged", tx["status"])
		assert.EqualValues(t, 0, tx["refunded_amount"])
		// An owner only sees the audit log.
		assert.Equal(t, 403, c.get("/dashboard/audit-log").Status)
	})
}

func TestRefundFromThePaymentPageOnce(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		id := e.seed("", "order-r", payments.Charged)
		c := e.client()
		c.signIn(e.user("", dashboard.Developer))
		p := c.get("/dashboard/payments/" + id)
		require.Contains(t, p.Body, `id="refund"`)
		// The refund form's key (the page's last one).
		keys := keyRe.FindAllStringSubmatch(p.Body, -1)
		key := keys[len(keys)-1][1]
		form := url.Values{"csrf": {p.csrf(t)}, "idempotency_key": {key}, "amount": {"25.00"}, "reason": {"damaged"}}
		r := c.post("/dashboard/payments/"+id+"/refund", form)
		require.Equal(t, 303, r.Status, r.Body)
		refundID := strings.TrimPrefix(r.Header.Get("Location"), "/dashboard/payments/")
		require.NotEqual(t, id, refundID)
		// The same form again (a double click, a reload): nothing more.
		again := c.post("/dashboard/payments/"+id+"/refund", form)
		require.Equal(t, 303, again.Status)
		tx := e.Do("GET", "/v1/transactions/"+id, nil).Map(t)
		assert.EqualValues(t, 2500, tx["refunded_amount"])
		assert.Equal(t, "partially_refunded", tx["status"])
		refund := e.Do("GET", "/v1/transactions/"+refundID, nil).Map(t)
		assert.Equal(t, "refund", refund["type"])
		// The same key with another amount is refused, and moves nothing.
		form.Set("amount", "1.00")
		assert.Equal(t, 422, c.post("/dashboard/payments/"+id+"/refund", form).Status)
		assert.EqualValues(t, 2500, e.Do("GET", "/v1/transactions/"+id, nil).Map(t)["refunded_amount"])
		// Bad input is a 400 page.
		form.Set("amount", "-5")
		form.Set("idempotency_key", "dash_other")
		assert.Equal(t, 400, c.post("/dashboard/payments/"+id+"/refund", form).Status)
		detail := c.get("/dashboard/payments/" + id)
		assert.Contains(t, detail.Body, "partially_refunded")
		assert.Contains(t, detail.Body, "25.00 EUR")
	})
}

func TestCaptureAndCancelFromThePaymentPage(t *testing.T) {
	e := newEnv(t, embedded)
	c := e.client()
	c.signIn(e.user("", dashboard.Owner))
	for _, op := range []struct{ name, status string }{{"capture", "charged"}, {"cancel", "cancelled"}} {
		id := e.seed("", "order-"+op.name, payments.Authorized)
		p := c.get("/dashboard/payments/" + id)
		require.Contains(t, p.Body, `id="`+op.name+`"`)
		r := c.post("/dashboard/payments/"+id+"/"+op.name, url.Values{"csrf": {p.csrf(t)}, "idempotency_key": {p.idemKey(t) + op.name}})
		require.Equal(t, 303, r.Status, r.Body)
		assert.Equal(t, op.status, e.Do("GET", "/v1/transactions/"+id, nil).Map(t)["status"])
	}
}

func TestAnotherAccountsRecordsAre404(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		other := e.otherAccount()
		theirs := e.seed(other.ID, "order-theirs", payments.Charged)
		c := e.client()
		csrf := c.signIn(e.user("", dashboard.Owner))
		assert.Equal(t, 404, c.get("/dashboard/payments/"+theirs).Status)
		assert.Equal(t, 404, c.get("/dashboard/payments/no-such-id").Status)
		r := c.post("/dashboard/payments/"+theirs+"/refund", url.Values{"csrf": {csrf}, "idempotency_key": {"dash_x1"}})
		assert.Equal(t, 404, r.Status)
		assert.NotContains(t, r.Body, "order-theirs")
		theirKey, _, err := e.Deps.Keys.Create(context.Background(), other.ID, authSecret())
		require.NoError(t, err)
		assert.Equal(t, 404, c.post("/dashboard/developers/api-keys/"+theirKey.ID+"/revoke", url.Values{"csrf": {csrf}}).Status)
		assert.Equal(t, 404, c.post("/dashboard/developers/api-keys/"+theirKey.ID+"/roll", url.Values{"csrf": {csrf}, "expires_in": {"0"}, "idempotency_key": {"dash_roll_3"}}).Status)
		assert.Nil(t, mustKey(t, e, other.ID, theirKey.ID).RevokedAt)
		assert.Equal(t, 404, c.get("/dashboard/developers/webhooks/"+theirs).Status)
		// Their payments are not in our lists either.
		assert.NotContains(t, c.get("/dashboard/payments").Body, theirs)
		assert.NotContains(t, c.get("/dashboard").Body, theirs)
		// And their user's session sees nothing of ours.
		ours := e.seed("", "order-ours", payments.Charged)
		them := e.client()
		them.signIn(e.user(other.ID, dashboard.Owner))
		assert.Equal(t, 404, them.get("/dashboard/payments/"+ours).Status)
		assert.NotContains(t, them.get("/dashboard/payments").Body, ours)
	})
}

func TestUserInputIsEscaped(t *testing.T) {
	e := newEnv(t, embedded)
	id := e.seed("", `<script>alert("x")</script>`, payments.Charged)
	c := e.client()
	c.signIn(e.user("", dashboard.Owner))
	for _, path := range []string{"/dashboard/payments/" + id, "/dashboard/payments", "/dashboard"} {
		p := c.get(path)
		require.Equal(t, 200, p.Status)
		assert.NotContains(t, p.Body, `<script>alert`, path)
		assert.Contains(t, p.Body, `&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;`, path)
	}
}

func TestPagesSendStrictSecurityHeaders(t *testing.T) {
	e := newEnv(t, embedded)
	c := e.client()
	email := e.user("", dashboard.Owner)
	check := func(p *page, what string) {
		t.Helper()
		assert.Equal(t, dashboard.CSP, p.Header.Get("Content-Security-Policy"), what)
		assert.Contains(t, p.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")
		assert.NotContains(t, p.Header.Get("Content-Security-Policy"), "unsafe-inline")
		assert.Equal(t, "DENY", p.Header.Get("X-Frame-Options"), what)
		assert.Equal(t, "same-origin", p.Header.Get("Referrer-Policy"), what)
		assert.Equal(t, "nosniff", p.Header.Get("X-Content-Type-Options"), what)
	}
	check(c.get("/dashboard/sign-in"), "sign-in")
	check(c.get("/dashboard"), "redirect")
	c.signIn(email)
	for _, path := range []string{"/dashboard", "/dashboard/payments", "/dashboard/payment-links", "/dashboard/developers/api-keys",
		"/dashboard/developers/api-version", "/dashboard/developers/webhooks", "/dashboard/settings/security", "/dashboard/audit-log",
		"/dashboard/gate/orders", "/dashboard/gate/balance", "/dashboard/wallet",
		"/dashboard/payments/missing"} {
		check(c.get(path), path)
	}
	css := c.get("/dashboard/static/dashboard.css")
	assert.Equal(t, 200, css.Status)
	assert.Equal(t, 404, c.get("/dashboard/static/nope.js").Status)
}

func TestPagesWithoutASessionGoToSignIn(t *testing.T) {
	e := newEnv(t, embedded)
	c := e.client()
	for _, path := range []string{"/dashboard", "/dashboard/payments", "/dashboard/developers/api-keys", "/dashboard/audit-log"} {
		r := c.get(path)
		assert.Equal(t, 303, r.Status, path)
		assert.Equal(t, "/dashboard/sign-in", r.Header.Get("Location"))
	}
	assert.Equal(t, 403, c.post("/dashboard/developers/api-keys", url.Values{"csrf": {"x"}}).Status)
	c.http.Jar.SetCookies(mustURL(t, e.URL+"/dashboard"), []*http.Cookie{{Name: dashboard.SessionCookie, Value: "forged", Path: "/dashboard"}})
	assert.Equal(t, 303, c.get("/dashboard").Status)
}

func TestAPIKeysCreateRollRevokeShowTheSecretOnce(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		c := e.client()
		csrf := c.signIn(e.user("", dashboard.Developer))
		form := url.Values{"csrf": {csrf}, "name": {"server <b>one</b>"}, "idempotency_key": {"dash_key_form_1"}}
		r := c.post("/dashboard/developers/api-keys", form)
		require.Equal(t, 201, r.Status, r.Body)
		// The same form again (a reload): no second key, no secret.
		again := c.post("/dashboard/developers/api-keys", form)
		require.Equal(t, 303, again.Status)
		ks, err := e.Deps.Keys.List(context.Background(), e.Account.ID)
		require.NoError(t, err)
		assert.Len(t, ks, 2, "the env's key and this one")
		assert.Equal(t, 400, c.post("/dashboard/developers/api-keys", url.Values{"csrf": {csrf}, "name": {"no key"}}).Status)
		secret := secretIn(t, r.Body)
		apitest.RememberSecret(secret)
		require.True(t, strings.HasPrefix(secret, "sk_test_"), secret)
		assert.Contains(t, r.Body, "server &lt;b&gt;one&lt;/b&gt;")
		// The key works on the API.
		assert.Equal(t, 200, e.DoKey(secret, "GET", "/v1/transactions", nil).Status)
		// Shown once: the list never shows it again.
		list := c.get("/dashboard/developers/api-keys")
		assert.NotContains(t, list.Body, secret)
		assert.NotContains(t, list.Body, secret[8:])
		// Roll with the old key kept for an hour.
		keyID := mustKeyByName(t, e, "server <b>one</b>")
		rolled := c.post("/dashboard/developers/api-keys/"+keyID+"/roll", url.Values{"csrf": {csrf}, "expires_in": {"3600"}, "idempotency_key": {"dash_roll_1"}})
		require.Equal(t, 201, rolled.Status, rolled.Body)
		newSecret := secretIn(t, rolled.Body)
		apitest.RememberSecret(newSecret)
		assert.Equal(t, 200, e.DoKey(secret, "GET", "/v1/transactions", nil).Status, "the old key still works for an hour")
		assert.Equal(t, 200, e.DoKey(newSecret, "GET", "/v1/transactions", nil).Status)
		assert.Equal(t, 400, c.post("/dashboard/developers/api-keys/"+keyID+"/roll", url.Values{"csrf": {csrf}, "expires_in": {"999999999"}, "idempotency_key": {"dash_roll_2"}}).Status)
		// Revoke the new one: the next request is refused.
		newID := mustKeyBySecretPrefix(t, e, newSecret)
		require.Equal(t, 303, c.post("/dashboard/developers/api-keys/"+newID+"/revoke", url.Values{"csrf": {csrf}}).Status)
		assert.Equal(t, 401, e.DoKey(newSecret, "GET", "/v1/transactions", nil).Status)
	})
}

func TestAPIVersionChangeTakesEffectOnTheNextRequest(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		c := e.client()
		csrf := c.signIn(e.user("", dashboard.Owner))
		p := c.get("/dashboard/developers/api-version")
		assert.Contains(t, p.Body, "2023-09-01")
		assert.Contains(t, p.Body, "2023-06-01")
		assert.Equal(t, "2024-01-15", e.Do("GET", "/v1/transactions", nil).Header.Get("Service-Version"))
		require.Equal(t, 303, c.post("/dashboard/developers/api-version", url.Values{"csrf": {csrf}, "version": {"2023-06-01"}}).Status)
		assert.Equal(t, "2023-06-01", e.Do("GET", "/v1/transactions", nil).Header.Get("Service-Version"))
		assert.Contains(t, c.get("/dashboard/developers/api-version").Body, `id="default-version">2023-06-01<`)
		assert.Equal(t, 400, c.post("/dashboard/developers/api-version", url.Values{"csrf": {csrf}, "version": {"1999-01-01"}}).Status)
	})
}

func TestPaymentLinksCreateListCancel(t *testing.T) {
	e := newEnv(t, embedded)
	c := e.client()
	c.signIn(e.user("", dashboard.Developer))
	p := c.get("/dashboard/payment-links")
	form := url.Values{"csrf": {p.csrf(t)}, "idempotency_key": {p.idemKey(t)}, "amount": {"12.50"}, "currency": {"eur"},
		"description": {"Two gift cards"}, "order_reference": {"order-link-1"}}
	require.Equal(t, 303, c.post("/dashboard/payment-links", form).Status)
	require.Equal(t, 303, c.post("/dashboard/payment-links", form).Status, "sent twice: one link")
	list := e.Do("GET", "/v1/payment-links", nil).Map(t)["data"].([]any)
	require.Len(t, list, 1)
	link := list[0].(map[string]any)
	assert.EqualValues(t, 1250, link["amount"].(map[string]any)["value"])
	page := c.get("/dashboard/payment-links")
	assert.Contains(t, page.Body, link["url"].(string))
	assert.Contains(t, page.Body, `data-copy="`+link["url"].(string)+`"`)
	form.Set("amount", "12.505")
	form.Set("idempotency_key", "dash_bad_amount")
	assert.Equal(t, 400, c.post("/dashboard/payment-links", form).Status)
	r := c.post("/dashboard/payment-links/"+link["id"].(string)+"/cancel", url.Values{"csrf": {page.csrf(t)}, "idempotency_key": {page.idemKey(t)}})
	require.Equal(t, 303, r.Status, r.Body)
	assert.Equal(t, "cancelled", e.Do("GET", "/v1/payment-links/"+link["id"].(string), nil).Map(t)["status"])
}

func TestWebhookEndpointCreateAndResend(t *testing.T) {
	e := newEnv(t, embedded)
	c := e.client()
	csrf := c.signIn(e.user("", dashboard.Developer))
	p := c.get("/dashboard/developers/webhooks")
	r := c.post("/dashboard/developers/webhooks", url.Values{"csrf": {csrf}, "idempotency_key": {p.idemKey(t)},
		"url": {"https://hooks.example.com/paygate"}, "events": {"*"}})
	require.Equal(t, 201, r.Status, r.Body)
	secret := secretIn(t, r.Body)
	apitest.RememberSecret(secret)
	assert.True(t, strings.HasPrefix(secret, "whsec_"))
	eps := e.Do("GET", "/v1/webhook-endpoints", nil).Map(t)["data"].([]any)
	require.Len(t, eps, 1)
	epID := eps[0].(map[string]any)["id"].(string)
	// An event to resend: a refund's.
	id := e.seed("", "order-w", payments.Charged)
	pay := c.get("/dashboard/payments/" + id)
	keys := keyRe.FindAllStringSubmatch(pay.Body, -1)
	require.Equal(t, 303, c.post("/dashboard/payments/"+id+"/refund", url.Values{"csrf": {csrf}, "idempotency_key": {keys[len(keys)-1][1]}}).Status)
	evs := e.Do("GET", "/v1/events", nil).Map(t)["data"].([]any)
	require.NotEmpty(t, evs)
	evID := evs[0].(map[string]any)["id"].(string)
	ep := c.get("/dashboard/developers/webhooks/" + epID)
	require.Equal(t, 200, ep.Status)
	assert.Contains(t, ep.Body, evID)
	rs := c.post("/dashboard/developers/webhooks/"+epID+"/resend", url.Values{"csrf": {csrf}, "event_id": {evID}})
	require.Equal(t, 303, rs.Status, rs.Body)
	assert.Equal(t, 404, c.post("/dashboard/developers/webhooks/"+epID+"/resend", url.Values{"csrf": {csrf}, "event_id": {"evt_missing"}}).Status)
}

// The Format choice creates an Adyen-format endpoint: its HMAC key is shown
// once, and the list says the format.
func TestWebhookEndpointAdyenFormat(t *testing.T) {
	e := newEnv(t, embedded)
	c := e.client()
	csrf := c.signIn(e.user("", dashboard.Developer))
	p := c.get("/dashboard/developers/webhooks")
	assert.Contains(t, p.Body, `<option value="adyen">`)
	r := c.post("/dashboard/developers/webhooks", url.Values{"csrf": {csrf}, "idempotency_key": {p.idemKey(t)},
		"url": {"https://hooks.example.com/adyen"}, "events": {"*"}, "format": {"adyen"}})
	require.Equal(t, 201, r.Status, r.Body)
	key := secretIn(t, r.Body)
	apitest.RememberSecret(key)
	assert.Regexp(t, `^[0-9A-F]{64}$`, key)
	eps := e.Do("GET", "/v1/webhook-endpoints", nil).Map(t)["data"].([]any)
	require.Len(t, eps, 1)
	assert.Equal(t, "adyen", eps[0].(map[string]any)["format"])
	assert.Contains(t, c.get("/dashboard/developers/webhooks").Body, "<td>adyen</td>")
	assert.NotContains(t, c.get("/dashboard/developers/webhooks").Body, key, "shown once")

	// An order event cannot be asked of it: a 400 on the form, nothing created.
	p = c.get("/dashboard/developers/webhooks")
	r = c.post("/dashboard/developers/webhooks", url.Values{"csrf": {csrf}, "idempotency_key": {p.idemKey(t)},
		"url": {"https://hooks.example.com/adyen2"}, "events": {"order.completed"}, "format": {"adyen"}})
	assert.Equal(t, 400, r.Status)
	assert.Contains(t, r.Body, "no Adyen notification")
	assert.Len(t, e.Do("GET", "/v1/webhook-endpoints", nil).Map(t)["data"].([]any), 1)
}

func TestSignOutAndSignOutEverywhere(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		email := e.user("", dashboard.Viewer)
		laptop, phone, tablet := e.client(), e.client(), e.client()
		lc := laptop.signIn(email)
		pc := phone.signIn(email)
		tablet.signIn(email)
		require.Equal(t, 303, laptop.post("/dashboard/sign-out", url.Values{"csrf": {lc}}).Status)
		assert.Equal(t, 303, laptop.get("/dashboard").Status, "signed out")
		assert.Equal(t, 200, phone.get("/dashboard").Status, "other sessions live on")
		require.Equal(t, 303, phone.post("/dashboard/sign-out-everywhere", url.Values{"csrf": {pc}}).Status)
		assert.Equal(t, 303, phone.get("/dashboard").Status)
		assert.Equal(t, 303, tablet.get("/dashboard").Status, "every session ended")
		tablet.signIn(email)
		assert.Equal(t, 200, tablet.get("/dashboard").Status, "a new sign-in works")
	})
}

func TestSessionsExpire(t *testing.T) {
	e := newEnv(t, embedded)
	c := e.client()
	c.signIn(e.user("", dashboard.Owner))
	e.Clock.Advance(dashboard.SessionTTL + time.Second)
	assert.Equal(t, 303, c.get("/dashboard").Status)
}

func TestAuditLogRecordsEveryChangeForOwners(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		owner := e.user("", dashboard.Owner)
		dev := e.user("", dashboard.Developer)
		d := e.client()
		csrf := d.signIn(dev)
		require.Equal(t, 303, d.post("/dashboard/developers/api-version", url.Values{"csrf": {csrf}, "version": {"2023-09-01"}}).Status)
		r := d.post("/dashboard/developers/api-keys", url.Values{"csrf": {csrf}, "name": {"ci"}, "idempotency_key": {"dash_ci"}})
		apitest.RememberSecret(secretIn(t, r.Body))
		assert.Equal(t, 403, d.get("/dashboard/audit-log").Status)
		o := e.client()
		o.signIn(owner)
		log := o.get("/dashboard/audit-log")
		require.Equal(t, 200, log.Status)
		for _, want := range []string{"account.default_version", "2023-09-01", "api_key.create", "session.sign_in", dev, "127.0.0.1"} {
			assert.Contains(t, log.Body, want)
		}
		entries, _, err := e.dash.AuditLog(context.Background(), e.Account.ID, 10, "")
		require.NoError(t, err)
		require.NotEmpty(t, entries)
		assert.Equal(t, "session.sign_in", entries[0].Action, "newest first: the owner's sign-in")
		assert.Equal(t, owner, entries[0].Email)
		assert.False(t, entries[0].At.IsZero())
		// Another account's log is its own.
		other, _, err := e.dash.AuditLog(context.Background(), e.otherAccount().ID, 10, "")
		require.NoError(t, err)
		assert.Empty(t, other)
	})
}

func TestTOTPSecondFactor(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		email := e.user("", dashboard.Viewer)
		ctx := context.Background()
		c := e.client()
		csrf := c.signIn(email)
		sec := c.get("/dashboard/settings/security")
		m := totpRe.FindStringSubmatch(sec.Body)
		require.NotNil(t, m)
		secret := m[1]
		apitest.RememberSecret(secret)
		bad := c.post("/dashboard/settings/security/totp", url.Values{"csrf": {csrf}, "action": {"enable"}, "secret": {secret}, "code": {"000000"}})
		require.Equal(t, 400, bad.Status)
		code, err := totp.GenerateCode(secret, e.Clock.Now())
		require.NoError(t, err)
		require.Equal(t, 303, c.post("/dashboard/settings/security/totp", url.Values{"csrf": {csrf}, "action": {"enable"}, "secret": {secret}, "code": {code}}).Status)
		_, _, err = e.dash.SignIn(ctx, dashboard.SignInInput{Email: email, Password: password, Address: "192.0.2.1"})
		assert.Equal(t, dashboard.ErrSignIn, err, "the password alone no longer signs in")
		_, _, err = e.dash.SignIn(ctx, dashboard.SignInInput{Email: email, Password: "wrong", Code: code, Address: "192.0.2.1"})
		assert.Equal(t, dashboard.ErrSignIn, err)
		// The next step's code (the one that turned it on is used).
		e.Clock.Advance(30 * time.Second)
		code, _ = totp.GenerateCode(secret, e.Clock.Now())
		_, sess, err := e.dash.SignIn(ctx, dashboard.SignInInput{Email: email, Password: password, Code: code, Address: "192.0.2.1"})
		require.NoError(t, err)
		assert.True(t, sess.User.TOTP)
	})
}

func TestUsersAndPasswords(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		ctx := context.Background()
		email := e.user("", dashboard.Owner)
		_, err := e.dash.CreateUser(ctx, dashboard.NewUser{AccountID: e.otherAccount().ID, Email: strings.ToUpper(email), Role: dashboard.Viewer, Password: password})
		assert.True(t, apierr.Is(err, apierr.Conflict), "an email is one user's: %v", err)
		for _, in := range []dashboard.NewUser{
			{AccountID: e.Account.ID, Email: "not an email", Role: dashboard.Owner, Password: password},
			{AccountID: e.Account.ID, Email: "a@example.test", Role: "admin", Password: password},
			{AccountID: e.Account.ID, Email: "a@example.test", Role: dashboard.Owner, Password: "short"},
		} {
			_, err := e.dash.CreateUser(ctx, in)
			assert.True(t, apierr.Is(err, apierr.Invalid), "%+v: %v", in, err)
		}
		_, err = e.dash.CreateUser(ctx, dashboard.NewUser{AccountID: "00000000-0000-7000-8000-000000000000", Email: "b@example.test", Role: dashboard.Owner, Password: password})
		assert.True(t, apierr.Is(err, apierr.NotFound), "%v", err)
		users, err := e.dash.Users(ctx, e.Account.ID)
		require.NoError(t, err)
		require.Len(t, users, 1)
		assert.Equal(t, email, users[0].Email)
		// A new password signs out every session.
		_, sess, err := e.dash.SignIn(ctx, dashboard.SignInInput{Email: email, Password: password, Address: "192.0.2.2"})
		require.NoError(t, err)
		require.NoError(t, e.dash.SetPassword(ctx, email, "a completely new passphrase"))
		_, err = e.dash.Lookup(ctx, sess.ID)
		assert.Equal(t, dashboard.ErrNoSession, err)
	})
}

func TestDefaultArgonCostVerifies(t *testing.T) {
	ok, bad := dashboard.CheckPasswordForTest("pw-0123456789", dashboard.DefaultArgon)
	assert.True(t, ok)
	assert.False(t, bad)
}

func TestQueryOverItsMaximumIs400(t *testing.T) {
	e := newEnv(t, embedded)
	c := e.client()
	c.signIn(e.user("", dashboard.Viewer))
	for _, path := range []string{"/dashboard/payments?reference=", "/dashboard/gate/orders?external_ref=", "/dashboard/wallet?reference=",
		"/dashboard/payments?cursor="} {
		assert.Equal(t, 400, c.get(path+strings.Repeat("a", dashboard.MaxQuery+1)).Status, path)
		assert.NotEqual(t, 500, c.get(path+strings.Repeat("a", dashboard.MaxQuery)).Status, path)
	}
	for _, path := range []string{"/dashboard/payments?status=nope", "/dashboard/payments?type=nope",
		"/dashboard/payments?reference=" + strings.Repeat("a", 129), "/dashboard/gate/orders?external_ref=a%20b"} {
		assert.Equal(t, 400, c.get(path).Status, path)
	}
}

func TestMalformedInputIs400BeforeTheSession(t *testing.T) {
	e := newEnv(t, embedded)
	c := e.client() // no session: the input is refused first
	assert.Equal(t, 400, c.get("/dashboard/payments/"+strings.Repeat("a", 101)).Status)
	assert.Equal(t, 400, c.get("/dashboard/payments/a%20b").Status)
	assert.Equal(t, 400, c.get("/dashboard/payments?reference="+strings.Repeat("a", dashboard.MaxQuery+1)).Status)
	assert.Equal(t, 400, c.post("/dashboard/sign-out", url.Values{"csrf": {strings.Repeat("a", dashboard.MaxFormValue+1)}}).Status)
	assert.Equal(t, 400, c.post("/dashboard/sign-in", url.Values{"email": {strings.Repeat("a", dashboard.MaxFormValue+1)}}).Status)
	assert.Equal(t, 400, c.post("/dashboard/payments/x/refund", url.Values{"reason": {strings.Repeat("a", dashboard.MaxFormValue+1)}}).Status)
	assert.Equal(t, 303, c.get("/dashboard/payments/"+strings.Repeat("a", 100)).Status, "at the maximum: on to sign-in")
}

func TestListsBadCursorIs400(t *testing.T) {
	e := newEnv(t, embedded)
	c := e.client()
	c.signIn(e.user("", dashboard.Owner))
	for _, cur := range []string{"000000000000", "!!", strings.Repeat("A", 190)} {
		for _, list := range []string{"/dashboard/audit-log", "/dashboard/payments", "/dashboard/gate/orders"} {
			assert.Equal(t, 400, c.get(list+"?cursor="+cur).Status, list+" "+cur)
		}
	}
}

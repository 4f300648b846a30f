package dashboard_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/gate/orders"
	"github.com/paygate/paygate/shared/pay/links"
	"github.com/paygate/paygate/shared/pay/transactions"
	"github.com/paygate/paygate/shared/pay/wallet"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/console/dashboard"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/auth"
	"github.com/paygate/paygate/shared/platform/health"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

type backend struct {
	name  string
	store func(testing.TB, *apitest.Clock) store.Store // nil: embedded
}

var (
	embedded = backend{"embedded", func(testing.TB, *apitest.Clock) store.Store { return nil }}
	dynamodb = backend{"dynamodb", func(t testing.TB, c *apitest.Clock) store.Store { return dynamotest.New(t, c.Now) }}
)

// stores runs f on the embedded store and on DynamoDB Local.
func stores(t *testing.T, f func(t *testing.T, b backend)) {
	for _, b := range []backend{embedded, dynamodb} {
		t.Run(b.name, func(t *testing.T) { f(t, b) })
	}
}

// testArgon keeps the tests' hashes cheap (the race detector slows argon2
// tenfold); TestDefaultArgonCost checks the real cost's hashes.
var testArgon = dashboard.ArgonParams{Memory: 1024, Time: 1, Threads: 1}

type env struct {
	*apitest.Env
	dash *dashboard.Service
}

const password = "correct horse battery staple"

// newEnv serves the dashboard beside the APIs it shares services with
// (transactions, links, webhook endpoints and events), as deployed.
func newEnv(t testing.TB, b backend) *env {
	t.Helper()
	return newEnvWith(t, b, nil)
}

// newEnvWith is newEnv over wrap(the store) when wrap is not nil.
func newEnvWith(t testing.TB, b backend, wrap func(store.Store) store.Store) *env {
	t.Helper()
	e := &env{}
	clock := &apitest.Clock{}
	st := b.store(t, clock)
	if wrap != nil {
		if st == nil {
			bs, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), clock.Now)
			require.NoError(t, err)
			t.Cleanup(func() { _ = bs.Close() })
			st = bs
		}
		st = wrap(st)
	}
	dash := func(d *app.Deps) (httpapi.Group, error) {
		s, err := dashboard.FromDeps(d)
		if err != nil {
			return httpapi.Group{}, err
		}
		e.dash = s.WithArgon(testArgon)
		return e.dash.Group(), nil
	}
	e.Env = apitest.NewWith(t, apitest.Options{Store: st, Clock: clock}, dash,
		transactions.BuildTransactions, links.BuildPaymentLinks, webhooks.BuildWebhookEndpoints, webhooks.BuildEvents,
		orders.BuildGateOrders, wallet.BuildWallet,
		// /openapi.json, which the documentation links to.
		func(*app.Deps) (httpapi.Group, error) { return health.Group(), nil })
	return e
}

// user creates a dashboard user of account (the env's when "").
func (e *env) user(account string, role dashboard.Role) string {
	e.T.Helper()
	if account == "" {
		account = e.Account.ID
	}
	email := fmt.Sprintf("%s-%s@example.test", role, ids.New()[24:])
	_, err := e.dash.CreateUser(context.Background(), dashboard.NewUser{AccountID: account, Email: email, Role: role, Password: password})
	require.NoError(e.T, err)
	return email
}

// otherAccount is a second test-mode account.
func (e *env) otherAccount() *accounts.Account {
	a, _ := e.NewAccount(accounts.Test)
	return a
}

// seed stores a payment of account as checkout leaves it (captured when
// charged), through the payments repo.
func (e *env) seed(account, ref string, status payments.Status) string {
	e.T.Helper()
	if account == "" {
		account = e.Account.ID
	}
	now := e.Clock.Now()
	p := payments.New(payments.Payment{ID: ids.New(), AccountID: account, Amount: 10000, Currency: "EUR",
		PaymentMethod: "visa", Last4: "1111", MerchantReference: ref, Metadata: map[string]string{}}, now)
	require.NoError(e.T, p.Transition(payments.Authorized, "", now))
	if status == payments.Charged {
		require.NoError(e.T, p.Capture(payments.Op{}, now))
	}
	require.NoError(e.T, payments.NewRepo(e.Deps.Store).Save(context.Background(), p))
	return p.ID
}

// client is one browser: its cookies, no redirects followed, every answer
// validated against the OpenAPI document.
type client struct {
	e    *env
	http *http.Client
}

func (e *env) client() *client {
	jar, _ := cookiejar.New(nil)
	return &client{e: e, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type page struct {
	Status int
	Header http.Header
	Body   string
}

func (c *client) do(method, path string, form url.Values) *page {
	c.e.T.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, c.e.URL+path, body)
	require.NoError(c.e.T, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := c.http.Do(req)
	require.NoError(c.e.T, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(c.e.T, err)
	require.NoError(c.e.T, c.e.Validator.Validate(method, req.URL.Path, res.StatusCode, res.Header.Get("Content-Type"), raw))
	return &page{Status: res.StatusCode, Header: res.Header, Body: string(raw)}
}

func (c *client) get(path string) *page { c.e.T.Helper(); return c.do("GET", path, nil) }

func (c *client) post(path string, form url.Values) *page {
	c.e.T.Helper()
	return c.do("POST", path, form)
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
var keyRe = regexp.MustCompile(`name="idempotency_key" value="([^"]+)"`)

// csrf is the token in a page's forms.
func (p *page) csrf(t testing.TB) string {
	m := csrfRe.FindStringSubmatch(p.Body)
	require.NotNil(t, m, "no csrf field in %s", p.Body)
	return m[1]
}

func (p *page) idemKey(t testing.TB) string {
	m := keyRe.FindStringSubmatch(p.Body)
	require.NotNil(t, m, "no idempotency_key field")
	return m[1]
}

// signIn signs the client in and returns the home page's CSRF token.
func (c *client) signIn(email string) string {
	c.e.T.Helper()
	form := c.get("/dashboard/sign-in")
	require.Equal(c.e.T, 200, form.Status)
	r := c.post("/dashboard/sign-in", url.Values{"csrf": {form.csrf(c.e.T)}, "email": {email}, "password": {password}})
	require.Equal(c.e.T, 303, r.Status, r.Body)
	require.Equal(c.e.T, "/dashboard", r.Header.Get("Location"))
	home := c.get("/dashboard")
	require.Equal(c.e.T, 200, home.Status, home.Body)
	return home.csrf(c.e.T)
}

var secretRe = regexp.MustCompile(`id="new-secret">([^<]+)<`)
var totpRe = regexp.MustCompile(`id="totp-secret">([^<]+)<`)

func secretIn(t testing.TB, body string) string {
	m := secretRe.FindStringSubmatch(body)
	require.NotNil(t, m, "no secret shown")
	return m[1]
}

func authSecret() auth.NewKey { return auth.NewKey{Kind: auth.Secret, Name: "theirs"} }

func mustKey(t testing.TB, e *env, account, id string) *auth.Key {
	ks, err := e.Deps.Keys.List(context.Background(), account)
	require.NoError(t, err)
	for _, k := range ks {
		if k.ID == id {
			return k
		}
	}
	t.Fatalf("no key %s", id)
	return nil
}

func mustKeyByName(t testing.TB, e *env, name string) string {
	ks, err := e.Deps.Keys.List(context.Background(), e.Account.ID)
	require.NoError(t, err)
	for _, k := range ks {
		if k.Name == name && k.ExpiresAt == nil {
			return k.ID
		}
	}
	t.Fatalf("no key named %s", name)
	return ""
}

func mustKeyBySecretPrefix(t testing.TB, e *env, secret string) string {
	ks, err := e.Deps.Keys.List(context.Background(), e.Account.ID)
	require.NoError(t, err)
	for _, k := range ks {
		if strings.HasPrefix(secret, k.Prefix) && k.ExpiresAt == nil && k.RevokedAt == nil {
			return k.ID
		}
	}
	t.Fatalf("no key for %s", secret[:12])
	return ""
}

func mustURL(t testing.TB, s string) *url.URL {
	u, err := url.Parse(s)
	require.NoError(t, err)
	return u
}

func apitestRemember(s string) { apitest.RememberSecret(s) }

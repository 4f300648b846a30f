package dashboard

import (
	"context"
	"errors"
	"html/template"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/gate/orders"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/pay/links"
	"github.com/paygate/paygate/shared/pay/transactions"
	"github.com/paygate/paygate/shared/pay/wallet"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/auth"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/listing"
	"github.com/paygate/paygate/shared/platform/version"
)

// Group is the DashboardFunction's routes (declared in DashboardGroup).
func (s *Service) Group() httpapi.Group {
	handlers := map[string]httpapi.Handler{
		"GET /dashboard":                                  s.page(s.home),
		"GET /dashboard/sign-in":                          s.signInPage,
		"POST /dashboard/sign-in":                         s.signIn,
		"POST /dashboard/sign-out":                        s.signOut,
		"POST /dashboard/sign-out-everywhere":             s.signOutEverywhere,
		"GET /dashboard/static/{file}":                    serveStatic,
		"GET /dashboard/payments":                         s.page(s.paymentsPage),
		"GET /dashboard/payments/{id}":                    s.page(s.paymentPage),
		"POST /dashboard/payments/{id}/capture":           s.form(false, s.paymentChange("capture")),
		"POST /dashboard/payments/{id}/cancel":            s.form(false, s.paymentChange("cancel")),
		"POST /dashboard/payments/{id}/refund":            s.form(false, s.paymentChange("refund")),
		"GET /dashboard/payment-links":                    s.page(s.linksPage),
		"POST /dashboard/payment-links":                   s.form(false, s.createLink),
		"POST /dashboard/payment-links/{id}/cancel":       s.form(false, s.cancelLink),
		"GET /dashboard/gate/orders":                      s.page(s.ordersPage),
		"GET /dashboard/gate/orders/{id}":                 s.page(s.orderPage),
		"GET /dashboard/gate/balance":                     s.page(s.gateBalancePage),
		"GET /dashboard/wallet":                           s.page(s.walletPage),
		"GET /dashboard/payouts":                          s.page(s.payoutsPage),
		"POST /dashboard/payouts":                         s.form(false, s.createPayout),
		"GET /dashboard/payouts/{id}":                     s.page(s.payoutPage),
		"POST /dashboard/payouts/{id}/cancel":             s.form(false, s.cancelPayout),
		"POST /dashboard/payout-cards":                    s.form(false, s.saveCard),
		"POST /dashboard/payout-cards/{id}/delete":        s.form(false, s.deleteCard),
		"GET /dashboard/beneficiaries":                    s.page(s.beneficiariesPage),
		"POST /dashboard/beneficiaries":                   s.form(false, s.createBeneficiary),
		"GET /dashboard/beneficiaries/{id}":               s.page(s.beneficiaryPage),
		"POST /dashboard/beneficiaries/{id}":              s.form(false, s.updateBeneficiary),
		"POST /dashboard/beneficiaries/{id}/transfer":     s.form(false, s.transferBeneficiary),
		"GET /dashboard/payment-orders":                   s.page(s.paymentOrdersPage),
		"GET /dashboard/payment-orders/{id}":              s.page(s.paymentOrderPage),
		"GET /dashboard/distributions":                    s.page(s.distributionsPage),
		"GET /dashboard/distributions/{id}":               s.page(s.distributionPage),
		"GET /dashboard/invoices":                         s.page(s.invoicesPage),
		"POST /dashboard/invoices":                        s.form(false, s.createInvoice),
		"GET /dashboard/invoices/{id}":                    s.page(s.invoicePage),
		"POST /dashboard/invoices/{id}/cancel":            s.form(false, s.cancelInvoice),
		"GET /dashboard/disputes":                         s.page(s.disputesPage),
		"GET /dashboard/disputes/{id}":                    s.page(s.disputePage),
		"POST /dashboard/disputes/{id}/evidence":          s.form(false, s.disputeEvidence),
		"POST /dashboard/disputes/{id}/submit":            s.form(false, s.disputeAction("submit")),
		"POST /dashboard/disputes/{id}/accept":            s.form(false, s.disputeAction("accept")),
		"GET /dashboard/developers/api-keys":              s.page(s.keysPage),
		"POST /dashboard/developers/api-keys":             s.form(false, s.createKey),
		"POST /dashboard/developers/api-keys/{id}/roll":   s.form(false, s.rollKey),
		"POST /dashboard/developers/api-keys/{id}/revoke": s.form(false, s.revokeKey),
		"GET /dashboard/developers/api-version":           s.page(s.versionPage),
		"POST /dashboard/developers/api-version":          s.form(false, s.setVersion),
		"GET /dashboard/developers/webhooks":              s.page(s.webhooksPage),
		"POST /dashboard/developers/webhooks":             s.form(false, s.createEndpoint),
		"GET /dashboard/developers/webhooks/{id}":         s.page(s.endpointPage),
		"POST /dashboard/developers/webhooks/{id}/resend": s.form(false, s.resend),
		"GET /dashboard/settings/security":                s.page(s.securityPage),
		"POST /dashboard/settings/security/totp":          s.form(true, s.totp),
		"GET /dashboard/audit-log":                        s.page(s.auditPage),
	}
	maps.Copy(handlers, s.developerRoutes())
	maps.Copy(handlers, s.docsRoutes())
	return DashboardGroup.Bind(handlers)
}

func serveStatic(r *httpapi.Request) (*httpapi.Response, error) {
	name := r.PathValue("file")
	if err := checkInput(r, nil); err != nil {
		return nil, err
	}
	types := map[string]string{"dashboard.css": "text/css; charset=utf-8", "dashboard.js": "text/javascript; charset=utf-8",
		"docs.css": "text/css; charset=utf-8"}
	ct, ok := types[name]
	if !ok {
		return nil, apierr.NotFoundf("no such dashboard file: %s", name)
	}
	body, err := staticFS.ReadFile("static/" + name)
	if err != nil {
		return nil, apierr.Wrap("dashboard.static", apierr.Internal, err)
	}
	resp := httpapi.Bytes(http.StatusOK, ct, body)
	resp.Headers = headers()
	resp.Headers.Set("Cache-Control", "public, max-age=300")
	return resp, nil
}

// --- sign-in

type signInData struct{ CSRF, Email string }

func (s *Service) signInPage(r *httpapi.Request) (*httpapi.Response, error) {
	if _, err := s.sessionOf(r); err == nil {
		return redirect("/dashboard", nil), nil
	}
	return s.signInForm(r, http.StatusOK, "", "")
}

// signInForm draws the sign-in form with a fresh pre-session CSRF token,
// kept in its own cookie (double submit).
func (s *Service) signInForm(r *httpapi.Request, status int, email, msg string) (*httpapi.Response, error) {
	tok := token()
	h := http.Header{}
	h.Add("Set-Cookie", cookie(r.HTTP, PreCSRFCookie, tok, 3600))
	return render(status, "signin", view{Title: "Sign in", Error: msg, Data: signInData{CSRF: tok, Email: email}}, h)
}

func (s *Service) signIn(r *httpapi.Request) (*httpapi.Response, error) {
	form, err := url.ParseQuery(string(r.Body))
	if ierr := checkInput(r, form); ierr != nil {
		return s.errorPage(&call{r: r}, ierr)
	}
	pre, cerr := r.HTTP.Cookie(PreCSRFCookie)
	if err != nil || cerr != nil || form.Get("csrf") == "" || form.Get("csrf") != pre.Value {
		c := &call{r: r}
		return s.errorPage(c, apierr.New(CodeCSRF, "This form is out of date: reload the sign-in page and try again."))
	}
	tok, _, err := s.SignIn(r.HTTP.Context(), SignInInput{Email: form.Get("email"), Password: form.Get("password"),
		Code: form.Get("code"), Address: clientAddress(r.HTTP)})
	switch {
	case errors.Is(err, ErrLocked):
		return s.signInForm(r, http.StatusTooManyRequests, form.Get("email"), ErrLocked.Message)
	case errors.Is(err, ErrSignIn):
		return s.signInForm(r, http.StatusUnauthorized, form.Get("email"), "The email, password or code is wrong.")
	case err != nil:
		return s.errorPage(&call{r: r}, err)
	}
	h := http.Header{}
	h.Add("Set-Cookie", cookie(r.HTTP, SessionCookie, tok, int(SessionTTL/time.Second)))
	h.Add("Set-Cookie", cookie(r.HTTP, PreCSRFCookie, "", -1))
	return redirect("/dashboard", h), nil
}

// signOut and signOutEverywhere take any role's session and its CSRF token.
func (s *Service) signOut(r *httpapi.Request) (*httpapi.Response, error) {
	return s.signOutWith(r, false)
}

func (s *Service) signOutEverywhere(r *httpapi.Request) (*httpapi.Response, error) {
	return s.signOutWith(r, true)
}

func (s *Service) signOutWith(r *httpapi.Request, everywhere bool) (*httpapi.Response, error) {
	c := &call{r: r}
	form, _ := url.ParseQuery(string(r.Body))
	if err := checkInput(r, form); err != nil {
		return s.errorPage(c, err)
	}
	sess, err := s.sessionOf(r)
	if errors.Is(err, ErrNoSession) {
		return redirect("/dashboard/sign-in", nil), nil
	}
	if err != nil {
		return s.errorPage(c, err)
	}
	c.sess, c.form, c.v = sess, form, s.baseView(r, sess)
	if !sess.CheckCSRF(form.Get("csrf")) {
		return s.errorPage(c, apierr.New(CodeCSRF, "This form is out of date: reload the page and try again."))
	}
	action := "session.sign_out"
	if everywhere {
		action = "session.sign_out_everywhere"
	}
	err = s.audited(c, action, "", "", func(ctx context.Context) (string, error) {
		if everywhere {
			return "", s.SignOutEverywhere(ctx, sess.User.Email)
		}
		return "", s.SignOut(ctx, sess)
	})
	if err != nil {
		return s.errorPage(c, err)
	}
	h := http.Header{}
	h.Add("Set-Cookie", cookie(r.HTTP, SessionCookie, "", -1))
	return redirect("/dashboard/sign-in", h), nil
}

// --- home and payments

// account is the account the page reads and writes: the session's (the
// user's own, or its pair once switched).
func (c *call) account() string { return c.sess.Account }

type homeData struct {
	Balances any
	Payments []transactions.Transaction
	Orders   []orders.Order
}

func (s *Service) home(c *call) (*httpapi.Response, error) {
	var d homeData
	if s.balance != nil {
		b, err := s.balance.Balances(c.ctx(), c.account())
		if err != nil {
			return nil, err
		}
		d.Balances = b
	}
	items, _, err := s.payments.List(c.ctx(), c.account(), transactions.Filter{}, listing.Params{Limit: 10})
	if err != nil {
		return nil, err
	}
	d.Payments = items
	if s.orders != nil {
		if d.Orders, _, err = s.orders.List(c.ctx(), c.account(), orders.Filter{}, listing.Params{Limit: 5}); err != nil {
			return nil, err
		}
	}
	c.v.Title, c.v.Nav, c.v.Data = "Home", "home", d
	return render(http.StatusOK, "home", c.v, nil)
}

type paymentsData struct {
	Items           []transactions.Transaction
	Statuses        []payments.Status
	Types           []payments.Type
	Status, Type    string
	Reference, Next string
	NextQuery       template.URL
}

func (s *Service) paymentsPage(c *call) (*httpapi.Response, error) {
	q := c.r.HTTP.URL.Query()
	f := transactions.Filter{OrderReference: strings.TrimSpace(q.Get("reference"))}
	if len([]rune(f.OrderReference)) > transactions.MaxOrderReference {
		return nil, apierr.Invalidf("reference", "an order reference has at most %d characters", transactions.MaxOrderReference)
	}
	if st := q.Get("status"); st != "" {
		if !payments.Status(st).Valid() {
			return nil, apierr.Invalidf("status", "status must be one of %v", payments.Statuses)
		}
		f.Status = payments.Status(st)
	}
	if t := q.Get("type"); t != "" {
		if t != string(payments.TypePayment) && t != string(payments.TypeRefund) && t != string(payments.TypeReversal) {
			return nil, apierr.Invalidf("type", "type must be payment, refund or reversal")
		}
		f.Type = payments.Type(t)
	}
	items, next, err := s.payments.List(c.ctx(), c.account(), f, listing.Params{Limit: 25, Cursor: q.Get("cursor")})
	if err != nil {
		return nil, err
	}
	nq := url.Values{}
	for _, k := range []string{"status", "type", "reference"} {
		if v := q.Get(k); v != "" {
			nq.Set(k, v)
		}
	}
	nq.Set("cursor", next)
	c.v.Title, c.v.Nav = "Payments", "payments"
	c.v.Data = paymentsData{Items: items, Statuses: payments.Statuses,
		Types:  []payments.Type{payments.TypePayment, payments.TypeRefund, payments.TypeReversal},
		Status: q.Get("status"), Type: q.Get("type"), Reference: f.OrderReference, Next: next, NextQuery: nextQuery(nq)}
	return render(http.StatusOK, "payments", c.v, nil)
}

type paymentData struct {
	T       *transactions.Transaction
	History []transactions.HistoryEntry
}

func (s *Service) paymentPage(c *call) (*httpapi.Response, error) {
	id := c.r.PathValue("id")
	t, err := s.payments.Get(c.ctx(), c.account(), id)
	if err != nil {
		return nil, err
	}
	h, err := s.payments.History(c.ctx(), c.account(), id)
	if err != nil {
		return nil, err
	}
	c.v.Title, c.v.Nav, c.v.Data = "Payment "+t.ID, "payments", paymentData{T: t, History: h}
	return render(http.StatusOK, "payment", c.v, nil)
}

// optionalAmount reads an amount field in the payment's currency, as
// people write it (12.50; "" is none), in minor units.
func optionalAmount(form url.Values, currency string) (*int64, error) {
	raw := strings.TrimSpace(form.Get("amount"))
	if raw == "" {
		return nil, nil
	}
	c, err := money.ParseCurrency(currency)
	if err != nil {
		return nil, apierr.Wrap("dashboard.amount", apierr.Internal, err)
	}
	n, err := money.ParseDecimalField("amount", raw, c)
	if err != nil {
		return nil, err
	}
	if n <= 0 || n > transactions.MaxAmount {
		return nil, apierr.Invalidf("amount", "the amount must be above 0")
	}
	return &n, nil
}

// paymentChange captures, cancels or refunds through the transactions
// service, under the form's idempotency key: the same form sent twice
// moves money once.
func (s *Service) paymentChange(op string) handler {
	return func(c *call) (*httpapi.Response, error) {
		id := c.r.PathValue("id")
		cur, err := s.payments.Get(c.ctx(), c.account(), id)
		if err != nil {
			return nil, err
		}
		amount, err := optionalAmount(c.form, cur.Currency)
		if err != nil {
			return nil, err
		}
		reason := strings.TrimSpace(c.form.Get("reason"))
		if len(reason) > 200 {
			return nil, apierr.Invalidf("reason", "the reason has at most 200 characters")
		}
		back := "/dashboard/payments/" + url.PathEscape(id)
		idem, err := s.idemCall(c, map[string]any{"amount": amount, "reason": reason})
		if replayed(err) {
			return redirect(back, nil), nil
		}
		if err != nil {
			return nil, err
		}
		in := transactions.OpInput{AccountID: c.account(), ID: id, Amount: amount, Reason: reason, RequestID: c.r.ID, Idem: idem}
		detail := ""
		if amount != nil {
			detail = formatAmount(*amount, cur.Currency)
		}
		var t *transactions.Transaction
		err = s.audited(c, "payment."+op, id, detail, func(ctx context.Context) (_ string, err error) {
			switch op {
			case "capture":
				t, err = s.payments.Capture(ctx, in)
			case "cancel":
				t, err = s.payments.Cancel(ctx, in)
			default:
				t, err = s.payments.Refund(ctx, in)
			}
			return "", err
		})
		if replayed(err) {
			return redirect(back, nil), nil
		}
		if err != nil {
			return nil, err
		}
		if op == "refund" {
			return redirect("/dashboard/payments/"+url.PathEscape(t.ID), nil), nil
		}
		return redirect(back, nil), nil
	}
}

// --- payment links

func (s *Service) linksPage(c *call) (*httpapi.Response, error) {
	items, _, err := s.links.List(c.ctx(), c.account(), links.Filter{}, listing.Params{Limit: 50})
	if err != nil {
		return nil, err
	}
	c.v.Title, c.v.Nav, c.v.Data = "Payment links", "links", map[string]any{"Items": items}
	return render(http.StatusOK, "links", c.v, nil)
}

func (s *Service) linkCaller(c *call, acct *accounts.Account) links.Caller {
	return links.Caller{AccountID: acct.ID, MerchantAccount: acct.MerchantAccount, TestMode: acct.Mode != accounts.Live,
		Now: c.r.Now, BaseURL: s.publicURL(c.r.HTTP), RequestID: c.r.ID}
}

func (s *Service) publicURL(r *http.Request) string {
	if s.linksBase != "" {
		return s.linksBase
	}
	return links.RequestBaseURL(r)
}

func (s *Service) createLink(c *call) (*httpapi.Response, error) {
	acct, err := s.accounts.Get(c.ctx(), c.account())
	if err != nil {
		return nil, err
	}
	cur, err := money.ParseCurrencyField("currency", strings.ToUpper(strings.TrimSpace(c.form.Get("currency"))))
	if err != nil {
		return nil, err
	}
	value, err := money.ParseDecimalField("amount", strings.TrimSpace(c.form.Get("amount")), cur)
	if err != nil {
		return nil, err
	}
	in := links.CreateRequest{Amount: &money.Amount{Value: value, Currency: cur.Code()}, Description: c.form.Get("description")}
	if ref := strings.TrimSpace(c.form.Get("order_reference")); ref != "" {
		in.OrderReference = &ref
	}
	idem, err := s.idemCall(c, in)
	if replayed(err) {
		return redirect("/dashboard/payment-links", nil), nil
	}
	if err != nil {
		return nil, err
	}
	caller := s.linkCaller(c, acct)
	caller.Idem = idem
	err = s.audited(c, "payment_link.create", "", formatAmount(value, cur.Code()), func(ctx context.Context) (string, error) {
		l, err := s.links.Create(ctx, caller, in)
		if err != nil {
			return "", err
		}
		return l.ID, nil
	})
	if replayed(err) {
		return redirect("/dashboard/payment-links", nil), nil
	}
	if err != nil {
		return nil, err
	}
	return redirect("/dashboard/payment-links", nil), nil
}

func (s *Service) cancelLink(c *call) (*httpapi.Response, error) {
	acct, err := s.accounts.Get(c.ctx(), c.account())
	if err != nil {
		return nil, err
	}
	id := c.r.PathValue("id")
	idem, err := s.idemCall(c, "{}")
	if replayed(err) {
		return redirect("/dashboard/payment-links", nil), nil
	}
	if err != nil {
		return nil, err
	}
	caller := s.linkCaller(c, acct)
	caller.Idem = idem
	err = s.audited(c, "payment_link.cancel", id, "", func(ctx context.Context) (string, error) {
		_, err := s.links.Cancel(ctx, caller, id)
		return "", err
	})
	if err != nil && !replayed(err) {
		return nil, err
	}
	return redirect("/dashboard/payment-links", nil), nil
}

// --- API keys

type keysData struct {
	Keys   []*auth.Key
	Secret string
	now    time.Time
}

// Expired reports whether k has passed its expiry.
func (d keysData) Expired(k *auth.Key) bool { return k.ExpiresAt != nil && !d.now.Before(*k.ExpiresAt) }

func (s *Service) keysView(c *call, status int, secret string) (*httpapi.Response, error) {
	ks, err := s.keys.List(c.ctx(), c.account())
	if err != nil {
		return nil, err
	}
	c.v.Title, c.v.Nav, c.v.Data = "API keys", "keys", keysData{Keys: ks, Secret: secret, now: s.clock()}
	return render(status, "keys", c.v, nil)
}

func (s *Service) keysPage(c *call) (*httpapi.Response, error) {
	return s.keysView(c, http.StatusOK, "")
}

// createKey answers the page itself, with the secret: shown once, never
// stored in clear, never in a URL.
func (s *Service) createKey(c *call) (*httpapi.Response, error) {
	name := strings.TrimSpace(c.form.Get("name"))
	if len(name) > 100 {
		return nil, apierr.Invalidf("name", "the name has at most 100 characters")
	}
	var k *auth.Key
	var secret string
	done, err := s.claimed(c, name, func() error {
		return s.audited(c, "api_key.create", "", name, func(ctx context.Context) (_ string, err error) {
			k, secret, err = s.keys.Create(ctx, c.account(), auth.NewKey{Kind: auth.Secret, Name: name})
			if err != nil {
				return "", err
			}
			return k.ID, nil
		})
	})
	if err != nil {
		return nil, err
	}
	if done {
		return redirect("/dashboard/developers/api-keys", nil), nil
	}
	c.v.Notice = "Key created."
	return s.keysView(c, http.StatusCreated, secret)
}

// ownKey is the account's key id, or NotFound (another account's key too).
func (s *Service) ownKey(c *call) (string, error) {
	id := c.r.PathValue("id")
	ks, err := s.keys.List(c.ctx(), c.account())
	if err != nil {
		return "", err
	}
	for _, k := range ks {
		if k.ID == id {
			return id, nil
		}
	}
	return "", apierr.NotFoundf("no such key: %s", id)
}

// MaxRollExpiry is the longest an old key may keep working after a roll.
const MaxRollExpiry = 7 * 24 * time.Hour

func (s *Service) rollKey(c *call) (*httpapi.Response, error) {
	id, err := s.ownKey(c)
	if err != nil {
		return nil, err
	}
	secs, err := strconv.Atoi(c.form.Get("expires_in"))
	if err != nil || secs < 0 || time.Duration(secs)*time.Second > MaxRollExpiry {
		return nil, apierr.Invalidf("expires_in", "expires_in must be 0 to %d seconds", int(MaxRollExpiry/time.Second))
	}
	var secret string
	done, err := s.claimed(c, c.form.Get("expires_in"), func() error {
		return s.audited(c, "api_key.roll", id, "old key works "+strconv.Itoa(secs)+" s more", func(ctx context.Context) (_ string, err error) {
			_, secret, err = s.keys.Roll(ctx, c.account(), id, s.clock().Add(time.Duration(secs)*time.Second))
			return "", err
		})
	})
	if err != nil {
		return nil, err
	}
	if done {
		return redirect("/dashboard/developers/api-keys", nil), nil
	}
	c.v.Notice = "Key rolled."
	return s.keysView(c, http.StatusCreated, secret)
}

func (s *Service) revokeKey(c *call) (*httpapi.Response, error) {
	id, err := s.ownKey(c)
	if err != nil {
		return nil, err
	}
	err = s.audited(c, "api_key.revoke", id, "", func(ctx context.Context) (string, error) {
		_, err := s.keys.Revoke(ctx, c.account(), id)
		return "", err
	})
	if err != nil {
		return nil, err
	}
	return redirect("/dashboard/developers/api-keys", nil), nil
}

// --- API version

type versionRow struct {
	Version string
	Current bool
	Changes []string
}

func (s *Service) versionPage(c *call) (*httpapi.Response, error) {
	acct, err := s.accounts.Get(c.ctx(), c.account())
	if err != nil {
		return nil, err
	}
	var rows []versionRow
	for _, v := range version.Versions() {
		row := versionRow{Version: v, Current: v == version.Current}
		for _, ch := range version.Changes() {
			if ch.Version == v {
				row.Changes = append(row.Changes, ch.Description)
			}
		}
		rows = append(rows, row)
	}
	c.v.Title, c.v.Nav = "API version", "version"
	c.v.Data = map[string]any{"Default": acct.DefaultVersion, "Versions": rows}
	return render(http.StatusOK, "version", c.v, nil)
}

func (s *Service) setVersion(c *call) (*httpapi.Response, error) {
	v := c.form.Get("version")
	err := s.audited(c, "account.default_version", c.account(), v, func(ctx context.Context) (string, error) {
		return "", s.keys.SetDefaultVersion(ctx, c.account(), v)
	})
	if err != nil {
		return nil, err
	}
	return redirect("/dashboard/developers/api-version", nil), nil
}

// --- webhooks

func (s *Service) webhooksView(c *call, status int, secret string) (*httpapi.Response, error) {
	eps, _, err := s.webhooks.List(c.ctx(), c.account(), 100, "")
	if err != nil {
		return nil, err
	}
	evs, _, err := s.webhooks.Events(c.ctx(), c.account(), webhooks.EventFilter{}, 20, "")
	if err != nil {
		return nil, err
	}
	c.v.Title, c.v.Nav = "Webhooks", "webhooks"
	c.v.Data = map[string]any{"Endpoints": eps, "Events": evs, "Secret": secret}
	return render(status, "webhooks", c.v, nil)
}

func (s *Service) webhooksPage(c *call) (*httpapi.Response, error) {
	return s.webhooksView(c, http.StatusOK, "")
}

func (s *Service) createEndpoint(c *call) (*httpapi.Response, error) {
	acct, err := s.accounts.Get(c.ctx(), c.account())
	if err != nil {
		return nil, err
	}
	var evs []string
	for _, e := range strings.Split(c.form.Get("events"), ",") {
		if e = strings.TrimSpace(e); e != "" {
			evs = append(evs, e)
		}
	}
	in := webhooks.CreateInput{URL: strings.TrimSpace(c.form.Get("url")), EnabledEvents: evs, Description: c.form.Get("description"),
		Format: c.form.Get("format")}
	idem, err := s.idemCall(c, in)
	if replayed(err) {
		return redirect("/dashboard/developers/webhooks", nil), nil
	}
	if err != nil {
		return nil, err
	}
	in.Idem = idem
	var ep *webhooks.WithSecret
	err = s.audited(c, "webhook_endpoint.create", "", in.URL, func(ctx context.Context) (_ string, err error) {
		ep, err = s.webhooks.Create(ctx, webhooks.Caller{AccountID: acct.ID, Live: acct.Mode == accounts.Live}, in)
		if err != nil {
			return "", err
		}
		return ep.ID, nil
	})
	if replayed(err) {
		return redirect("/dashboard/developers/webhooks", nil), nil
	}
	if err != nil {
		return nil, err
	}
	c.v.Notice = "Endpoint added."
	return s.webhooksView(c, http.StatusCreated, ep.Shown())
}

func (s *Service) endpointPage(c *call) (*httpapi.Response, error) {
	return s.endpointView(c, http.StatusOK, "")
}

// endpointView is an endpoint's page: its settings' forms (a rolled
// secret shown once), its deliveries, the resend form.
func (s *Service) endpointView(c *call, status int, secret string) (*httpapi.Response, error) {
	id := c.r.PathValue("id")
	ep, err := s.webhooks.Get(c.ctx(), c.account(), id)
	if err != nil {
		return nil, err
	}
	atts, _, err := s.webhooks.Attempts(c.ctx(), c.account(), id, 50, "")
	if err != nil {
		return nil, err
	}
	evs, _, err := s.webhooks.Events(c.ctx(), c.account(), webhooks.EventFilter{}, 50, "")
	if err != nil {
		return nil, err
	}
	c.v.Title, c.v.Nav = "Webhook endpoint", "webhooks"
	c.v.Data = map[string]any{"Endpoint": ep, "Attempts": atts, "Events": evs, "Secret": secret,
		"EventList": strings.Join(ep.EnabledEvents, ", "), "MaxExpire": int(webhooks.MaxExpireOld / time.Second)}
	return render(status, "webhook", c.v, nil)
}

func (s *Service) resend(c *call) (*httpapi.Response, error) {
	id := c.r.PathValue("id")
	ev := c.form.Get("event_id")
	if ev == "" {
		return nil, apierr.Missing("event_id")
	}
	err := s.audited(c, "webhook_event.resend", ev, "to endpoint "+id, func(ctx context.Context) (string, error) {
		_, err := s.webhooks.Resend(ctx, c.account(), ev, id)
		return "", err
	})
	if err != nil {
		return nil, err
	}
	return redirect("/dashboard/developers/webhooks/"+url.PathEscape(id), nil), nil
}

// --- security and audit

func (s *Service) securityPage(c *call) (*httpapi.Response, error) {
	// The user's own account's people: all of them for its owners and
	// developers, a viewer only itself.
	users, err := s.Users(c.ctx(), c.sess.User.AccountID)
	if err != nil {
		return nil, err
	}
	if !c.sess.User.Role.CanChange() {
		users = slices.DeleteFunc(users, func(u User) bool { return u.ID != c.sess.User.ID })
	}
	// A new secret for the app: to turn the second factor on, or to move
	// it to another app.
	u, secret, err := s.StartTOTP(c.sess.User.Email)
	if err != nil {
		return nil, err
	}
	d := map[string]any{"TOTP": c.sess.User.TOTP, "Users": users, "URL": u, "Secret": secret}
	c.v.Title, c.v.Nav, c.v.Data = "Security", "security", d
	return render(http.StatusOK, "security", c.v, nil)
}

// totp turns the user's own second factor on, replaces its secret (a new
// app) or turns it off. Any role may: it is the user's, not the account's.
// Replacing and turning off need a current code of the app or the
// password (Proof).
func (s *Service) totp(c *call) (*httpapi.Response, error) {
	action := c.form.Get("action")
	if action != "enable" && action != "replace" && action != "disable" {
		return nil, apierr.Invalidf("action", "action must be enable, replace or disable")
	}
	if (action == "enable") == c.sess.User.TOTP {
		return nil, apierr.Kindf(apierr.Conflict, "two-step sign-in is %s already: reload the page", map[bool]string{true: "on", false: "off"}[c.sess.User.TOTP])
	}
	proof := Proof{Code: c.form.Get("current_code"), Password: c.form.Get("password"), Address: clientAddress(c.r.HTTP)}
	err := s.audited(c, "user.totp_"+action, c.sess.User.ID, "", func(ctx context.Context) (string, error) {
		if action == "disable" {
			return "", s.DisableTOTP(ctx, c.sess.User.Email, proof)
		}
		return "", s.ConfirmTOTP(ctx, c.sess.User.Email, c.form.Get("secret"), c.form.Get("code"), proof)
	})
	if err != nil {
		return nil, err
	}
	return redirect("/dashboard/settings/security", nil), nil
}

func (s *Service) auditPage(c *call) (*httpapi.Response, error) {
	if c.sess.Role != Owner {
		return nil, apierr.New(CodeRole, "Only owners see the audit log.")
	}
	entries, next, err := s.AuditLog(c.ctx(), c.account(), 50, c.r.HTTP.URL.Query().Get("cursor"))
	if err != nil {
		return nil, err
	}
	c.v.Title, c.v.Nav, c.v.Data = "Audit log", "audit", map[string]any{"Entries": entries, "Next": next}
	return render(http.StatusOK, "audit", c.v, nil)
}

// --- Gate orders, balance and deposits; wallet transactions (read only)

func (s *Service) ordersPage(c *call) (*httpapi.Response, error) {
	q := c.r.HTTP.URL.Query()
	f := orders.Filter{Status: orders.Status(q.Get("status")), ExternalRef: strings.TrimSpace(q.Get("external_ref"))}
	if f.ExternalRef != "" && !externalRef.MatchString(f.ExternalRef) {
		return nil, apierr.Invalidf("external_ref", "an external reference is 1 to 64 letters, digits and . _ - :")
	}
	if f.Status != "" && !slices.Contains(orderStatuses, f.Status) {
		return nil, apierr.Invalidf("status", "status must be one of %v", orderStatuses)
	}
	items, next, err := s.orders.List(c.ctx(), c.account(), f, listing.Params{Limit: 25, Cursor: q.Get("cursor")})
	if err != nil {
		return nil, err
	}
	nq := url.Values{}
	for _, k := range []string{"status", "external_ref"} {
		if v := q.Get(k); v != "" {
			nq.Set(k, v)
		}
	}
	nq.Set("cursor", next)
	c.v.Title, c.v.Nav = "Gate orders", "orders"
	c.v.Data = map[string]any{"Items": items, "Statuses": orderStatuses, "Status": f.Status, "ExternalRef": f.ExternalRef,
		"Next": next, "NextQuery": nextQuery(nq)}
	return render(http.StatusOK, "orders", c.v, nil)
}

// externalRef is what a Gate order's external reference may hold.
var externalRef = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)

// orderStatuses are the Gate order statuses a list filters by.
var orderStatuses = orders.Statuses

func (s *Service) orderPage(c *call) (*httpapi.Response, error) {
	o, err := s.orders.Get(c.ctx(), c.account(), c.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	c.v.Title, c.v.Nav, c.v.Data = "Order "+o.ID, "orders", o
	return render(http.StatusOK, "order", c.v, nil)
}

func (s *Service) gateBalancePage(c *call) (*httpapi.Response, error) {
	bals, err := s.gate.Balances(c.ctx(), c.account())
	if err != nil {
		return nil, err
	}
	deps, _, err := s.gate.Deposits(c.ctx(), c.account(), prepaid.DepositFilter{}, 50, "")
	if err != nil {
		return nil, err
	}
	c.v.Title, c.v.Nav, c.v.Data = "Gate balance", "gate", map[string]any{"Balances": bals, "Deposits": deps}
	return render(http.StatusOK, "gatebalance", c.v, nil)
}

func (s *Service) walletPage(c *call) (*httpapi.Response, error) {
	q := c.r.HTTP.URL.Query()
	f := wallet.Filter{OrderReference: strings.TrimSpace(q.Get("reference"))}
	if len([]rune(f.OrderReference)) > 64 {
		return nil, apierr.Invalidf("reference", "an order reference has at most 64 characters")
	}
	if st := q.Get("status"); st != "" {
		if !slices.Contains(wallet.Statuses, wallet.Status(st)) {
			return nil, apierr.Invalidf("status", "status must be one of %v", wallet.Statuses)
		}
		f.Status = wallet.Status(st)
	}
	items, _, err := s.wallet.List(c.ctx(), c.account(), f, listing.Params{Limit: 50})
	if err != nil {
		return nil, err
	}
	c.v.Title, c.v.Nav = "Wallet", "wallet"
	c.v.Data = map[string]any{"Items": items, "Statuses": wallet.Statuses, "Status": q.Get("status"), "Reference": f.OrderReference}
	return render(http.StatusOK, "wallet", c.v, nil)
}

// switchAccount moves the session to the account the form names (the
// user's own, or its pair), then to its home page: a record page of one
// account is a 404 in the other.
func (s *Service) switchAccount(c *call) (*httpapi.Response, error) {
	if err := s.SwitchAccount(c.ctx(), c.sess, c.form.Get("account"), clientAddress(c.r.HTTP)); err != nil {
		return nil, err
	}
	return redirect("/dashboard", nil), nil
}

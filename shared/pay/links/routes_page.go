package links

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/text/language"

	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/pay/dropin"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// The hosted page: GET /pay/{id} draws the link's amount, description and
// merchant name, and nothing else of the link (its references, metadata,
// customer and account stay out of the page), in English, Russian or
// Kazakh (the link's shopper_locale, else the browser's Accept-Language).
// An active link's page loads the Drop-in, which pays through the link's
// session (pay.go); a paid, cancelled or expired one says so. Text is
// escaped by html/template, so a description's markup shows as text. The
// page runs under a strict Content-Security-Policy: its own scripts and
// styles only, no inline code, calls to its own origin only, no framing.

// PageCSP is the hosted page's Content-Security-Policy.
const PageCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"frame-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

//go:embed page.html
var pageHTML string

// pageTmpl is the page, parsed the first time it is shown (not at every
// cold start of the links' functions).
var pageTmpl = sync.OnceValue(func() *template.Template { return template.Must(template.New("page").Parse(pageHTML)) })

// PageGroup is the HostedPageFunction's routes (declared in PageGroup).
func (p *Pager) PageGroup() httpapi.Group {
	return PageGroup.Bind(map[string]httpapi.Handler{
		"GET /pay/{id}":                                         p.page,
		"POST /pay/{id}/session":                                p.session,
		"POST /pay/{id}/sessions/{session_id}/setup":            p.setup,
		"POST /pay/{id}/sessions/{session_id}/payments":         p.pay,
		"POST /pay/{id}/sessions/{session_id}/payments/details": p.details,
		"GET /dropin/{version}/{file}":                          dropin.ServeAsset,
		"GET /sandbox/3ds2/challenge":                           dropin.ServeChallenge,
	})
}

// pageText is the page's own text per language (the Drop-in brings its own).
var pageText = map[string]map[string]string{
	"en": {
		"title": "Pay {merchant}", "test": "Test mode", "noscript": "This payment page needs JavaScript.",
		"cancel": "Cancel and return to {merchant}", "back": "Return to {merchant}",
		"paid": "Already paid", "paidText": "This payment link has already been paid.",
		"cancelled": "Link cancelled", "cancelledText": "The merchant cancelled this payment link.",
		"expired": "Link expired", "expiredText": "This payment link has expired.",
		"missing": "Payment link not found", "missingText": "Check the address, or ask the merchant for a new link.",
	},
	"ru": {
		"title": "Оплата: {merchant}", "test": "Тестовый режим", "noscript": "Для оплаты на этой странице нужен JavaScript.",
		"cancel": "Отменить и вернуться в {merchant}", "back": "Вернуться в {merchant}",
		"paid": "Уже оплачено", "paidText": "Эта платёжная ссылка уже оплачена.",
		"cancelled": "Ссылка отменена", "cancelledText": "Продавец отменил эту платёжную ссылку.",
		"expired": "Срок действия ссылки истёк", "expiredText": "Срок действия этой платёжной ссылки истёк.",
		"missing": "Платёжная ссылка не найдена", "missingText": "Проверьте адрес или попросите у продавца новую ссылку.",
	},
	"kk": {
		"title": "Төлем: {merchant}", "test": "Сынақ режимі", "noscript": "Бұл төлем бетіне JavaScript қажет.",
		"cancel": "Бас тартып, {merchant} сайтына оралу", "back": "{merchant} сайтына оралу",
		"paid": "Төленген", "paidText": "Бұл төлем сілтемесі бойынша төлем жасалып қойған.",
		"cancelled": "Сілтеме жойылды", "cancelledText": "Сатушы бұл төлем сілтемесін жойды.",
		"expired": "Сілтеменің мерзімі өтті", "expiredText": "Бұл төлем сілтемесінің мерзімі өтіп кетті.",
		"missing": "Төлем сілтемесі табылмады", "missingText": "Мекенжайды тексеріңіз немесе сатушыдан жаңа сілтеме сұраңыз.",
	},
}

var pageLanguages = []language.Tag{language.English, language.Russian, language.Kazakh}

var pageMatcher = language.NewMatcher(pageLanguages)

// pageLang is the page's language: the link's shopper_locale when the page
// speaks it, else the best match of the browser's Accept-Language.
func pageLang(shopperLocale string, r *http.Request) string {
	if shopperLocale != "" {
		lang, _, _ := strings.Cut(strings.ReplaceAll(shopperLocale, "_", "-"), "-")
		if _, ok := pageText[strings.ToLower(lang)]; ok {
			return strings.ToLower(lang)
		}
	}
	tags, _, _ := language.ParseAcceptLanguage(r.Header.Get("Accept-Language"))
	_, i, conf := pageMatcher.Match(tags...)
	if conf == language.No {
		return "en"
	}
	base, _ := pageLanguages[i].Base()
	return base.String()
}

func say(lang, key, merchant string) string {
	return strings.ReplaceAll(pageText[lang][key], "{merchant}", merchant)
}

// formatAmount is minor units in major units for people: 1,234.50 EUR in
// English; 1 234,50 EUR (no-break spaces) in Russian and Kazakh.
func formatAmount(a money.Amount, lang string) string {
	c, err := money.ParseCurrency(a.Currency)
	if err != nil {
		return strconv.FormatInt(a.Value, 10) + " " + a.Currency
	}
	whole, frac, _ := strings.Cut(money.FormatDecimal(a.Value, c), ".")
	sep, dec := ",", "."
	if lang != "en" {
		sep, dec = "\u00a0", ","
	}
	var b strings.Builder
	for i, d := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteRune(d)
	}
	if frac != "" {
		b.WriteString(dec + frac)
	}
	return b.String() + "\u00a0" + a.Currency
}

// pageConfig is what hosted.js reads from the page (data-config).
type pageConfig struct {
	Link       string `json:"link"`
	Status     Status `json:"status"`
	Locale     string `json:"locale"`
	Merchant   string `json:"merchant"`
	SuccessURL string `json:"successUrl,omitempty"`
	FailureURL string `json:"failureUrl,omitempty"`
}

type pageData struct {
	Lang, Title, Version, Config            string
	Test                                    bool
	TestMode, Merchant, Amount, Description string
	State, StateTitle, StateText, StateURL  string
	BackTo, NoScript, CancelURL, Cancel     string
}

// pageHeaders are every page answer's headers: never cached (the link's
// state changes), no referrer (the url is what pays the link), no framing.
func pageHeaders() http.Header {
	h := http.Header{}
	h.Set("Content-Security-Policy", PageCSP)
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	return h
}

func (p *Pager) render(r *httpapi.Request, status int, d pageData) (*httpapi.Response, error) {
	d.Version = dropin.Version
	var buf bytes.Buffer
	if err := pageTmpl().Execute(&buf, d); err != nil {
		return nil, apierr.Wrap("links.page", apierr.Internal, err)
	}
	return httpapi.Compressed(r.HTTP, status, "text/html; charset=utf-8", buf.Bytes(), nil, pageHeaders()), nil
}

// page serves GET /pay/{id}: one GetItem.
func (p *Pager) page(r *httpapi.Request) (*httpapi.Response, error) {
	rec, err := p.links.load(r.HTTP.Context(), r.PathValue("id"))
	if apierr.Is(err, apierr.NotFound) {
		lang := pageLang("", r.HTTP)
		return p.render(r, http.StatusNotFound, pageData{Lang: lang, Title: say(lang, "missing", ""), State: "error",
			StateTitle: say(lang, "missing", ""), StateText: say(lang, "missingText", "")})
	}
	if err != nil {
		return nil, err
	}
	lang := pageLang(rec.ShopperLocale, r.HTTP)
	status := rec.StatusAt(r.Now)
	cfg, err := json.Marshal(pageConfig{Link: rec.ID, Status: status, Locale: lang, Merchant: rec.MerchantName,
		SuccessURL: rec.SuccessURL, FailureURL: rec.FailureURL})
	if err != nil {
		return nil, apierr.Wrap("links.page", apierr.Internal, err)
	}
	d := pageData{
		Lang: lang, Title: say(lang, "title", rec.MerchantName), Config: string(cfg), Test: !rec.Livemode,
		TestMode: say(lang, "test", ""), Merchant: rec.MerchantName, Amount: formatAmount(rec.Amount, lang),
		Description: rec.Description, BackTo: say(lang, "back", rec.MerchantName), NoScript: say(lang, "noscript", ""),
		CancelURL: rec.CancelURL, Cancel: say(lang, "cancel", rec.MerchantName),
	}
	switch status {
	case StatusPaid:
		d.State, d.StateTitle, d.StateText, d.StateURL = "paid", say(lang, "paid", ""), say(lang, "paidText", ""), rec.SuccessURL
	case StatusCancelled:
		d.State, d.StateTitle, d.StateText, d.StateURL = "linkCancelled", say(lang, "cancelled", ""), say(lang, "cancelledText", ""), rec.FailureURL
	case StatusExpired:
		d.State, d.StateTitle, d.StateText, d.StateURL = "expired", say(lang, "expired", ""), say(lang, "expiredText", ""), rec.FailureURL
	}
	return p.render(r, http.StatusOK, d)
}

// SessionRequest is the body of POST /pay/{id}/session: nothing to send.
type SessionRequest struct{}

func (p *Pager) session(r *httpapi.Request) (*httpapi.Response, error) {
	if len(r.Body) > 0 {
		if err := r.Decode(&SessionRequest{}); err != nil {
			return nil, err
		}
	}
	s, err := p.OpenSession(r.HTTP.Context(), r.PathValue("id"), r.Now)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(checkout.KindSession, s), nil
}

func (p *Pager) setup(r *httpapi.Request) (*httpapi.Response, error) {
	var in checkout.SessionDataRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	s, err := p.Setup(r.HTTP.Context(), r.PathValue("id"), r.PathValue("session_id"), in.SessionData, r.Now)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(checkout.KindSession, s), nil
}

// PagePaymentRequest is the body of the page's payment: the session's
// sessionData, the payment method and the browser. Nothing else of a
// merchant's payment request (metadata, references, line items, capture
// mode): anyone with the link's url may send this.
type PagePaymentRequest struct {
	SessionData   string                  `json:"sessionData" maxlen:"4096"`
	PaymentMethod *checkout.MethodDetails `json:"paymentMethod"`
	BrowserInfo   *checkout.BrowserInfo   `json:"browserInfo"`
}

// PageDetailsRequest is the body of the page's details: the session's
// sessionData and the action's answer.
type PageDetailsRequest struct {
	SessionData string                      `json:"sessionData" maxlen:"4096"`
	Details     *checkout.CompletionDetails `json:"details"`
	PaymentData string                      `json:"paymentData" maxlen:"4096"`
}

func (p *Pager) pay(r *httpapi.Request) (*httpapi.Response, error) {
	var body PagePaymentRequest
	if err := r.Decode(&body); err != nil {
		return nil, err
	}
	if body.PaymentMethod != nil && body.PaymentMethod.StoredPaymentMethodID != "" {
		// Stored cards are a merchant's shopper's: a page anyone with the
		// link's url opens lists none and pays with none.
		return nil, apierr.New(apierr.CodeParameterUnknown, "a payment link's page takes no stored payment method").WithParam("paymentMethod.storedPaymentMethodId")
	}
	in := checkout.ClientPaymentRequest{SessionData: body.SessionData,
		PaymentRequest: checkout.PaymentRequest{PaymentMethod: body.PaymentMethod, BrowserInfo: body.BrowserInfo}}
	res, err := p.Pay(r.HTTP.Context(), r.PathValue("id"), r.PathValue("session_id"), in, r.Now)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(checkout.KindPayment, res), nil
}

func (p *Pager) details(r *httpapi.Request) (*httpapi.Response, error) {
	var body PageDetailsRequest
	if err := r.Decode(&body); err != nil {
		return nil, err
	}
	in := checkout.ClientDetailsRequest{SessionData: body.SessionData,
		DetailsRequest: checkout.DetailsRequest{Details: body.Details, PaymentData: body.PaymentData}}
	res, err := p.Details(r.HTTP.Context(), r.PathValue("id"), r.PathValue("session_id"), in, r.Now)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(checkout.KindPayment, res), nil
}

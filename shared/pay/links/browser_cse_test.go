package links_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/cse"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/pay/dropin"
)

// The card fields the Drop-in encrypts in the browser (issue 28, item 4):
// every request a page sends is captured from the browser's own network
// events (the DevTools protocol's Network domain), and none may carry the
// card number, the CVC or the holder's name in clear: not in its URL, its
// headers or its body. The four encrypted fields are then opened with the
// service's keyring, which proves the page's WebCrypto output is what the
// Go decrypter reads (the cross-check of the JavaScript against cse).

// sent is one request the page sent.
type sent struct {
	id      network.RequestID
	method  string
	url     string
	headers map[string]any
	body    []byte
	hasBody bool
}

// recorder keeps every request of a tab.
type recorder struct {
	mu   sync.Mutex
	reqs []*sent
}

// record starts recording tab's requests (before it navigates).
func record(t *testing.T, tab context.Context) *recorder {
	t.Helper()
	rec := &recorder{}
	require.NoError(t, chromedp.Listen(tab, func(ev any) {
		e, ok := ev.(*network.EventRequestWillBeSent)
		if !ok || e.Request == nil {
			return
		}
		s := &sent{id: e.RequestID, method: e.Request.Method, url: e.Request.URL + e.Request.URLFragment, hasBody: e.Request.HasPostData,
			headers: map[string]any(e.Request.Headers)}
		for _, p := range e.Request.PostDataEntries {
			s.body = append(s.body, p.Bytes...)
		}
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, s)
		rec.mu.Unlock()
	}))
	_, err := chromedp.Call(tab, network.Enable, network.EnableParams{})
	require.NoError(t, err)
	return rec
}

// requests are the requests recorded so far; a body the event left out (too
// long for it) is asked of the browser.
func (r *recorder) requests(t *testing.T, tab context.Context) []*sent {
	t.Helper()
	r.mu.Lock()
	out := append([]*sent(nil), r.reqs...)
	r.mu.Unlock()
	for _, s := range out {
		if s.hasBody && len(s.body) == 0 {
			res, err := chromedp.Call(tab, network.GetRequestPostData, network.GetRequestPostDataParams{RequestID: s.id})
			require.NoError(t, err, "the body of %s %s", s.method, s.url)
			s.body = res.PostData
		}
	}
	return out
}

// jweShape is a compact JWE: five base64url parts, the first a header.
var jweShape = regexp.MustCompile(`^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$`)

// typedCard is what the tests type.
type typedCard struct{ number, cvc, holder string }

// clearIn lists what of the card a request carries in clear. A JWE is
// opaque (its base64url may hold any digits by chance); every other string
// of a JSON body, the URL and the headers are searched.
func (c typedCard) clearIn(s *sent) []string {
	var found []string
	look := func(where, v string) {
		digits := strings.NewReplacer(" ", "", "-", "").Replace(v)
		switch {
		case strings.Contains(digits, c.number):
			found = append(found, where+": the card number")
		case strings.Contains(v, c.number[len(c.number)-8:]):
			found = append(found, where+": the number's last 8 digits")
		}
		if standsAlone(v, c.cvc) {
			found = append(found, where+": the CVC")
		}
		if strings.Contains(strings.ToLower(v), strings.ToLower(c.holder)) {
			found = append(found, where+": the holder's name")
		}
	}
	look("url", s.url)
	for k, v := range s.headers {
		look("header "+k, fmt.Sprint(v))
	}
	if len(s.body) == 0 {
		return found
	}
	var body any
	if err := json.Unmarshal(s.body, &body); err != nil {
		look("body", string(s.body))
		return found
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, vv := range x {
				look(path+" key", k)
				walk(path+"."+k, vv)
			}
		case []any:
			for i, vv := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), vv)
			}
		case string:
			if !jweShape.MatchString(x) {
				look(path, x)
			}
		case float64:
			look(path, fmt.Sprint(x))
		}
	}
	walk("body", body)
	return found
}

// standsAlone reports whether tok occurs in v with no letter or digit on
// either side. Three digits are too short to search for bare: a random id
// ("01a2263e-d712-7372-...") or a timestamp holds them by chance, and a CI
// run failed so once; a CVC sent in clear stands as its own value.
func standsAlone(v, tok string) bool {
	alnum := func(b byte) bool {
		return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	}
	for from := 0; ; {
		i := strings.Index(v[from:], tok)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(tok)
		if (i == 0 || !alnum(v[i-1])) && (end == len(v) || !alnum(v[end])) {
			return true
		}
		from = i + 1
	}
}

// payment is the one payment request among reqs (path ends in /payments).
func payment(t *testing.T, reqs []*sent) map[string]any {
	t.Helper()
	var out []map[string]any
	for _, s := range reqs {
		if s.method == "POST" && strings.HasSuffix(strings.SplitN(s.url, "?", 2)[0], "/payments") {
			var b map[string]any
			require.NoError(t, json.Unmarshal(s.body, &b), "%s", s.body)
			out = append(out, b)
		}
	}
	require.Len(t, out, 1, "one payment request")
	return out[0]
}

// openFields opens the payment's four encrypted fields with the service's
// keyring, checks each JWE's header, and returns the payloads by field.
func (w *web) openFields(t *testing.T, pm map[string]any) map[string]cse.Card {
	t.Helper()
	keys, err := checkout.CardKeyring(w.Deps)
	require.NoError(t, err)
	current, ok, err := keys.Current(context.Background())
	require.NoError(t, err)
	require.True(t, ok)
	out := map[string]cse.Card{}
	for _, f := range []string{"encryptedCardNumber", "encryptedExpiryMonth", "encryptedExpiryYear", "encryptedSecurityCode"} {
		v, _ := pm[f].(string)
		require.Regexp(t, jweShape, v, "%s is a compact JWE", f)
		raw, err := base64.RawURLEncoding.DecodeString(strings.Split(v, ".")[0])
		require.NoError(t, err)
		var hdr map[string]any
		require.NoError(t, json.Unmarshal(raw, &hdr))
		assert.Equal(t, map[string]any{"alg": "RSA-OAEP-256", "enc": "A256CBC-HS512", "version": "1", "kid": current.KID}, hdr, f)
		card, err := keys.Open(context.Background(), v)
		require.NoError(t, err, "%s opens with the Go decrypter", f)
		out[f] = card
	}
	for _, clear := range []string{"number", "expiryMonth", "expiryYear", "cvc", "holderName"} {
		assert.NotContains(t, pm, clear, "no clear %s", clear)
	}
	return out
}

// assertNothingInClear checks every recorded request and that the payment
// was among them.
func assertNothingInClear(t *testing.T, reqs []*sent, c typedCard) {
	t.Helper()
	require.NotEmpty(t, reqs)
	for _, s := range reqs {
		assert.Empty(t, c.clearIn(s), "%s %s carries card data in clear", s.method, s.url)
	}
}

// TestBrowserHostedPageEncryptsTheCard: the hosted page pays a link with a
// card typed into its fields; no request it sends (the page, the Drop-in's
// files, the session, the setup, the payment) carries the number, the CVC
// or the holder's name in clear; the payment's four fields are JWEs to the
// current key that the Go keyring opens to what was typed (the holder's
// name inside the number's); the link is paid and its transaction charged.
func TestBrowserHostedPageEncryptsTheCard(t *testing.T) {
	w := newWeb(t)
	l := w.create(nil)
	id := l["id"].(string)
	tab := w.tab(t)
	rec := record(t, tab)
	do(t, tab, chromedp.Navigate(l["url"].(string)), chromedp.WaitVisible(numberField))
	c := typedCard{number: "4111111111111111", cvc: "737", holder: "Aigerim Sandbox"}
	pay(t, tab, c.number)
	waitFor(t, tab, ".pg-result--success")
	w.shot(t, tab, "hosted-encrypted-authorised")

	reqs := rec.requests(t, tab)
	assertNothingInClear(t, reqs, c)
	var urls []string
	for _, s := range reqs {
		urls = append(urls, s.method+" "+s.url)
	}
	for _, want := range []string{"GET " + l["url"].(string), "/dropin/" + dropin.Version + "/dropin.js", "/session", "/setup"} {
		assert.True(t, slices.ContainsFunc(urls, func(u string) bool { return strings.Contains(u, want) }), "%s recorded among %v", want, urls)
	}
	fields := w.openFields(t, payment(t, reqs)["paymentMethod"].(map[string]any))
	assert.Equal(t, c.number, fields["encryptedCardNumber"].Number)
	assert.Equal(t, c.holder, fields["encryptedCardNumber"].HolderName)
	assert.Equal(t, "03", fields["encryptedExpiryMonth"].ExpiryMonth)
	assert.Equal(t, "2030", fields["encryptedExpiryYear"].ExpiryYear)
	assert.Equal(t, c.cvc, fields["encryptedSecurityCode"].CVC)
	assert.Empty(t, fields["encryptedSecurityCode"].Number, "each payload holds its field alone")

	assert.Equal(t, "paid", w.get(id)["status"])
	tx := w.Do("GET", "/v1/transactions/by-payment-link/"+id, nil).Map(t)
	assert.Equal(t, "charged", tx["status"])
}

// TestBrowserDropinEncryptsTheCard: the Drop-in on a merchant's page of
// another origin (client key, CORS) pays a session with the 3-D Secure
// challenge card: no request of the page carries the card in clear (the
// challenge's requests included), and the session completes with a
// charged 3-D Secure transaction.
func TestBrowserDropinEncryptsTheCard(t *testing.T) {
	w := newWeb(t)
	ck := w.NewClientKey(w.shopURL)
	tab := w.tab(t)
	rec := record(t, tab)
	do(t, tab, chromedp.Navigate(w.shopURL+"/?key="+ck), chromedp.WaitVisible(numberField))
	sessionID := w.lastSession()
	c := typedCard{number: "5454545454545454", cvc: "737", holder: "Aigerim Sandbox"}
	pay(t, tab, c.number)
	challenge(t, tab, "password")
	waitFor(t, tab, ".pg-result--success")
	w.shot(t, tab, "dropin-encrypted-challenge-authorised")

	reqs := rec.requests(t, tab)
	assertNothingInClear(t, reqs, c)
	fields := w.openFields(t, payment(t, reqs)["paymentMethod"].(map[string]any))
	assert.Equal(t, c.number, fields["encryptedCardNumber"].Number)
	assert.Equal(t, c.cvc, fields["encryptedSecurityCode"].CVC)

	res := w.Do("GET", "/v2/sessions/"+sessionID, nil).Map(t)
	assert.Equal(t, "completed", res["status"])
	psp := res["payments"].([]any)[0].(map[string]any)["pspReference"].(string)
	tx := w.Do("GET", "/v1/transactions/"+psp, nil).Map(t)
	assert.Equal(t, "charged", tx["status"])
	assert.Equal(t, true, tx["secure3d"])
}

// TestBrowserEncryptCardKnownAnswer: the Drop-in's encryptCard, run by
// Chromium on the current key given both ways a merchant may hold it (the
// setup's {kid, jwk}, and GET /v1/payments/direct/keys' adyen_key string,
// which carries no kid), gives JWEs the Go keyring opens to the input; two
// runs never give the same bytes (a fresh content key and IV each time).
func TestBrowserEncryptCardKnownAnswer(t *testing.T) {
	w := newWeb(t)
	keys, err := checkout.CardKeyring(w.Deps)
	require.NoError(t, err)
	k, ok, err := keys.Current(context.Background())
	require.NoError(t, err)
	require.True(t, ok)
	jwk, err := k.JWKMap()
	require.NoError(t, err)
	l := w.create(nil)
	tab := w.tab(t)
	do(t, tab, chromedp.Navigate(l["url"].(string)), chromedp.WaitVisible(numberField))

	card := map[string]string{"number": "4111111111111111", "expiryMonth": "03", "expiryYear": "2030", "cvc": "737", "holderName": "Ä Ölçer 名"}
	for name, key := range map[string]any{"jwk": map[string]any{"kid": k.KID, "jwk": jwk}, "adyen_key": k.AdyenKey()} {
		t.Run(name, func(t *testing.T) {
			kb, _ := json.Marshal(key)
			cb, _ := json.Marshal(card)
			js := fmt.Sprintf(`Promise.all([PaygateCheckout.encryptCard(%s, %s), PaygateCheckout.encryptCard(%s, %s)]).then(r => JSON.stringify(r))`, kb, cb, kb, cb)
			out, err := chromedp.Run(tab, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
			require.NoError(t, err)
			var runs []map[string]string
			require.NoError(t, json.Unmarshal([]byte(out), &runs))
			require.Len(t, runs, 2)
			assert.NotEqual(t, runs[0]["encryptedCardNumber"], runs[1]["encryptedCardNumber"])
			got := map[string]string{}
			for f, v := range runs[0] {
				c, err := keys.Open(context.Background(), v)
				require.NoError(t, err, f)
				switch f {
				case "encryptedCardNumber":
					got["number"], got["holderName"] = c.Number, c.HolderName
				case "encryptedExpiryMonth":
					got["expiryMonth"] = c.ExpiryMonth
				case "encryptedExpiryYear":
					got["expiryYear"] = c.ExpiryYear
				case "encryptedSecurityCode":
					got["cvc"] = c.CVC
				}
			}
			assert.Equal(t, card, got)
		})
	}
}

// TestCardInClearIsFound: the check finds each way the card could leave in
// clear (Drop-in 1.0.0's test_ fields, a clear field, a URL, a header, a
// spaced number) and passes JWEs, whatever digits they hold.
func TestCardInClearIsFound(t *testing.T) {
	c := typedCard{number: "4111111111111111", cvc: "737", holder: "Aigerim Sandbox"}
	jwe := "eyJhbGciOiJSU0EtT0FFUC0yNTYifQ.41111111111111117374111.737.4111111111111111.737"
	for name, s := range map[string]*sent{
		"test_ fields":   {body: []byte(`{"paymentMethod":{"encryptedCardNumber":"test_4111111111111111","encryptedSecurityCode":"test_737"}}`)},
		"clear cvc":      {body: []byte(`{"paymentMethod":{"encryptedCardNumber":"` + jwe + `","cvc":"737"}}`)},
		"spaced number":  {body: []byte(`{"n":"4111 1111 1111 1111"}`)},
		"holder":         {body: []byte(`{"holderName":"aigerim sandbox"}`)},
		"url":            {url: "https://x.test/pay?c=737"},
		"header":         {headers: map[string]any{"X-Card": "4111111111111111"}},
		"not JSON":       {body: []byte("number=4111111111111111")},
		"number as JSON": {body: []byte(`{"n":4111111111111111}`)},
	} {
		assert.NotEmpty(t, c.clearIn(s), name)
	}
	assert.Empty(t, c.clearIn(&sent{url: "https://x.test/pay/01a2263e-d712-7372-a13a-7c1563409f8a", headers: map[string]any{"Date": "1764737000"}}),
		"a random id or a number that holds the CVC's digits is not the CVC")
	assert.Empty(t, c.clearIn(&sent{url: "https://x.test/v2/client/sessions/CS1/payments", body: []byte(`{"paymentMethod":{"encryptedCardNumber":"` + jwe + `"}}`)}))
}

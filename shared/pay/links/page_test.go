package links_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/pay/dropin"
	"github.com/paygate/paygate/shared/pay/links"
	"github.com/paygate/paygate/shared/platform/accounts"
)

// TestPageShowsOnlyWhatItMay: anyone with the url gets the page (no key,
// another account's link included), which shows the amount, the description
// as text and the merchant's name, and nothing else of the link: not its
// order reference, metadata, customer, account or capture mode. Served with
// the strict CSP, no referrer, no store, no framing.
func TestPageShowsOnlyWhatItMay(t *testing.T) {
	e := newEnv(t, embedded)
	other, otherKey := e.NewAccount(accounts.Test)
	customer := e.customer(other.ID) // the link is the other account's
	r := e.DoKey(otherKey, "POST", "/v1/payment-links", linkBody(map[string]any{
		"description": `Tickets <script>alert("pwned")</script> <img src=x onerror=alert(1)>`, "order_reference": "secret-order-ref",
		"customer_id": customer, "metadata": map[string]any{"internal": "do-not-show"}, "capture": "manual"}))
	require.Equal(t, 201, r.Status, "%s", r.Body)
	l := r.Map(t)
	page := e.page("GET", "/pay/"+l["id"].(string), nil)
	require.Equal(t, 200, page.Status)
	html := string(page.Body)
	assert.Equal(t, "text/html; charset=utf-8", page.Header.Get("Content-Type"))
	assert.Equal(t, links.PageCSP, page.Header.Get("Content-Security-Policy"))
	assert.Equal(t, "no-store", page.Header.Get("Cache-Control"))
	assert.Equal(t, "no-referrer", page.Header.Get("Referrer-Policy"))
	assert.Equal(t, "DENY", page.Header.Get("X-Frame-Options"))
	assert.Equal(t, "nosniff", page.Header.Get("X-Content-Type-Options"))

	assert.Contains(t, html, other.Name)
	assert.Contains(t, html, "10.00\u00a0EUR")
	assert.Contains(t, html, `Tickets &lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt; &lt;img src=x onerror=alert(1)&gt;`)
	assert.NotContains(t, html, "<script>alert")
	assert.NotContains(t, html, "<img")
	for _, hidden := range []string{"secret-order-ref", "do-not-show", customer, other.ID, "manual", other.MerchantAccount} {
		assert.NotContains(t, html, hidden)
	}
	assert.Equal(t, 1, strings.Count(html, "<script src=\"/dropin/"+dropin.Version+"/dropin.js\">"))
	assert.NotContains(t, html, "<script>", "no inline script (the CSP allows none)")
	assert.NotContains(t, html, "style=", "no inline style")

	// The page's language follows the browser when the link names none.
	ru := e.page("GET", "/pay/"+l["id"].(string), nil, "Accept-Language", "ru-KZ,ru;q=0.9,en;q=0.5")
	assert.Contains(t, string(ru.Body), `<html lang="ru">`)
	assert.Contains(t, string(ru.Body), "Тестовый режим")
	kk := e.page("GET", "/pay/"+l["id"].(string), nil, "Accept-Language", "kk")
	assert.Contains(t, string(kk.Body), `<html lang="kk">`)
	de := e.page("GET", "/pay/"+l["id"].(string), nil, "Accept-Language", "de-DE")
	assert.Contains(t, string(de.Body), `<html lang="en">`)

	// Gzipped for a client that takes it.
	gz := e.page("GET", "/pay/"+l["id"].(string), nil, "Accept-Encoding", "gzip")
	require.Equal(t, "gzip", gz.Header.Get("Content-Encoding"))
	zr, err := gzip.NewReader(bytes.NewReader(gz.Body))
	require.NoError(t, err)
	plain, err := io.ReadAll(zr)
	require.NoError(t, err)
	assert.Contains(t, string(plain), other.Name)
}

// TestPageOfAMissingLink: an unknown link, or an id that is not one, is a
// 404 page, never a 5xx.
func TestPageOfAMissingLink(t *testing.T) {
	e := newEnv(t, embedded)
	for _, id := range []string{uuid.NewString(), "not-a-link", strings.Repeat("9", 64)} {
		r := e.page("GET", "/pay/"+id, nil)
		require.Equal(t, 404, r.Status, id)
		assert.Equal(t, "text/html; charset=utf-8", r.Header.Get("Content-Type"))
		assert.Contains(t, string(r.Body), "Payment link not found")
		assert.NotContains(t, string(r.Body), "dropin.js")
	}
	r := e.page("POST", "/pay/"+uuid.NewString()+"/session", nil)
	assert.Equal(t, 404, r.Status)
}

// TestDropinFiles: each file of the current version, cached for a year by
// anyone, gzipped on request, revalidated by ETag; other versions and names
// are 404. The challenge screen may be framed by any page.
func TestDropinFiles(t *testing.T) {
	e := newEnv(t, embedded)
	for _, name := range dropin.Files {
		r := e.page("GET", "/dropin/"+dropin.Version+"/"+name, nil)
		require.Equal(t, 200, r.Status, name)
		f, _ := dropin.Get(dropin.Version, name)
		assert.Equal(t, f.Body, r.Body)
		assert.Equal(t, f.ContentType, r.Header.Get("Content-Type"))
		assert.Equal(t, "public, max-age=31536000, immutable", r.Header.Get("Cache-Control"))
		assert.Equal(t, "*", r.Header.Get("Access-Control-Allow-Origin"))
		etag := r.Header.Get("ETag")
		require.NotEmpty(t, etag)
		r = e.page("GET", "/dropin/"+dropin.Version+"/"+name, nil, "If-None-Match", etag)
		assert.Equal(t, 304, r.Status)
		assert.Empty(t, r.Body)
		r = e.page("GET", "/dropin/"+dropin.Version+"/"+name, nil, "Accept-Encoding", "br, gzip")
		assert.Equal(t, "gzip", r.Header.Get("Content-Encoding"))
		assert.Equal(t, f.Gzip, r.Body)
		assert.Less(t, len(f.Gzip), len(f.Body))
	}
	for _, path := range []string{"/dropin/0.9.0/dropin.js", "/dropin/" + dropin.Version + "/acs.html", "/dropin/" + dropin.Version + "/x.js"} {
		assert.Equal(t, 404, e.page("GET", path, nil).Status, path)
	}
	r := e.page("GET", "/sandbox/3ds2/challenge", nil)
	require.Equal(t, 200, r.Status)
	assert.Equal(t, dropin.ChallengeCSP, r.Header.Get("Content-Security-Policy"))
	assert.Contains(t, string(r.Body), `<input id="pg-acs-password"`)
	assert.Contains(t, string(r.Body), "/dropin/"+dropin.Version+"/acs.js")
}

package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBrowserDocs opens every page under /docs (the index, every guide, the
// API reference and a search of it) in Chromium, without a session or key:
// each renders, axe-core finds no serious or critical violation, every
// link on it answers (none 404s) and every link to a section of the page
// finds its section. The reference's search is a GET form: it works with
// scripts off, as every docs page does (they load none).
func TestBrowserDocs(t *testing.T) {
	w := newWeb(t)
	// A tab of its own with more time than tab's: axe-core over the whole
	// reference takes a while.
	tab, cancel := chromedp.NewContext(w.browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	tab, cancelTimeout := context.WithTimeout(tab, 5*time.Minute)
	t.Cleanup(cancelTimeout)
	do(t, tab, chromedp.EmulateViewport(1100, 760))
	paths := []string{"/docs", "/docs/api", "/docs/api?q=refund"}
	for _, g := range guides(t) {
		paths = append(paths, "/docs/"+g)
	}
	checked := map[string]bool{}
	for _, p := range paths {
		name := "docs" + strings.NewReplacer("/docs", "", "/", "-", "?q=", "-search-").Replace(p)
		w.open(t, tab, p)
		if p == "/docs/api" {
			// The whole reference is too tall for one screenshot: its top.
			png, err := chromedp.Run(tab, chromedp.CaptureScreenshot())
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(w.shots, name+".png"), png, 0o644))
			w.axeRun(t, tab, name)
		} else {
			w.look(t, tab, name)
		}
		title := text(t, tab, "main h1")
		assert.NotEmpty(t, title, p)
		links, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("a[href]"), a => a.href)`))
		require.NoError(t, err)
		require.NotEmpty(t, links, p)
		here, _ := url.Parse(w.URL + p)
		for _, l := range links {
			u, err := url.Parse(l)
			require.NoError(t, err, l)
			if u.Host != here.Host {
				continue // another site's page
			}
			if u.Fragment != "" && u.Path == here.Path && u.RawQuery == here.RawQuery {
				found, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.getElementById(`+jsString(u.Fragment)+`) !== null`))
				require.NoError(t, err)
				assert.True(t, found, "%s: link to #%s, a section it does not have", p, u.Fragment)
			}
			u.Fragment = ""
			if checked[u.String()] {
				continue
			}
			checked[u.String()] = true
			res, err := http.Get(u.String())
			require.NoError(t, err)
			res.Body.Close()
			assert.Less(t, res.StatusCode, 400, "%s links to %s", p, u)
		}
	}
	// The search box, as a person uses it (no script on the page).
	w.open(t, tab, "/docs")
	do(t, tab, chromedp.SendKeys(chromedp.CSS("#q"), "capture"))
	submit(t, tab, `form[role=search] button[type=submit]`)
	assert.Contains(t, text(t, tab, "#results"), "operations match")
	loc, err := chromedp.Run(tab, chromedp.Location())
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(loc, "/docs/api?q=capture"), loc)
	w.look(t, tab, "docs-search-capture")
}

func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

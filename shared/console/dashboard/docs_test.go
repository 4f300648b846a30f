package dashboard_test

import (
	"encoding/json"
	"html"
	"io/fs"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/docs"
	"github.com/paygate/paygate/shared/console/dashboard"
	"github.com/paygate/paygate/shared/platform/openapi"
)

// guides are the names of docs/*.md.
func guides(t *testing.T) []string {
	t.Helper()
	files, err := fs.Glob(docs.FS, "*.md")
	require.NoError(t, err)
	require.NotEmpty(t, files, "docs/ has no guide")
	var out []string
	for _, f := range files {
		out = append(out, strings.TrimSuffix(f, ".md"))
	}
	return out
}

// assertDocsPage holds a documentation page to HTML with the dashboard's
// headers; the client sends no key and no session cookie.
func assertDocsPage(t *testing.T, p *page, status int, what string) {
	t.Helper()
	assert.Equal(t, status, p.Status, what)
	assert.Equal(t, "text/html; charset=utf-8", p.Header.Get("Content-Type"), what)
	assert.Equal(t, dashboard.CSP, p.Header.Get("Content-Security-Policy"), what)
	assert.Equal(t, "DENY", p.Header.Get("X-Frame-Options"), what)
	assert.Equal(t, "same-origin", p.Header.Get("Referrer-Policy"), what)
	assert.Equal(t, "nosniff", p.Header.Get("X-Content-Type-Options"), what)
	assert.Equal(t, "same-origin", p.Header.Get("Cross-Origin-Opener-Policy"), what)
	assert.True(t, strings.HasPrefix(p.Body, "<!doctype html>"), what)
	assert.Empty(t, p.Header.Values("Set-Cookie"), what)
}

func TestDocsIndexAndEveryGuideAnswerHTMLWithoutAKey(t *testing.T) {
	e := newEnv(t, embedded)
	c := e.client()
	index := c.get("/docs")
	assertDocsPage(t, index, 200, "/docs")
	for _, name := range guides(t) {
		assert.Contains(t, index.Body, `href="/docs/`+name+`"`, "the index links every guide")
		g := c.get("/docs/" + name)
		assertDocsPage(t, g, 200, name)
		assert.Contains(t, g.Body, `<article class="markdown">`, name)
	}
	errs := c.get("/docs/errors")
	assert.Contains(t, errs.Body, "<table>", "GitHub's tables render")
	assert.Contains(t, errs.Body, "<code>body_invalid</code>")
	assert.NotContains(t, errs.Body, "Do not edit by hand", "raw HTML (the comment) is not rendered")
}

func TestDocsUnknownPageIsA404Page(t *testing.T) {
	e := newEnv(t, embedded)
	c := e.client()
	for _, name := range []string{"no-such-guide", "errors.md", "%3Cscript%3E"} {
		p := c.get("/docs/" + name)
		assertDocsPage(t, p, 404, name)
		assert.Contains(t, p.Body, "No such page", name)
		assert.NotContains(t, p.Body, "<script>", "the name is escaped")
	}
}

// opHead is an operation's heading in the reference.
func opHead(method, path string) string {
	return `<span class="method m-` + method + `">` + method + `</span> <code>` + html.EscapeString(path) + `</code>`
}

// operations walks /openapi.json: every operation as method and path.
func operations(t *testing.T) [][2]string {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(openapi.Document(), &doc))
	var out [][2]string
	for path, item := range doc.Paths {
		for m := range item {
			if slices.Contains([]string{"get", "put", "post", "delete", "patch", "head", "options", "trace"}, m) {
				out = append(out, [2]string{strings.ToUpper(m), path})
			}
		}
	}
	require.Greater(t, len(out), 100)
	return out
}

var countRe = regexp.MustCompile(`(\d+) of (\d+) operations match`)

func TestDocsAPIListsEveryOperationOfTheDocument(t *testing.T) {
	e := newEnv(t, embedded)
	c := e.client()
	ref := c.get("/docs/api")
	assertDocsPage(t, ref, 200, "/docs/api")
	ops := operations(t)
	for _, op := range ops {
		assert.Equal(t, 1, strings.Count(ref.Body, opHead(op[0], op[1])), "%s %s listed once", op[0], op[1])
	}
	assert.Contains(t, ref.Body, strconv.Itoa(len(ops))+" operations.")
	// An operation: its parameters, body, responses, codes and example.
	i := strings.Index(ref.Body, opHead("POST", "/v1/transactions/{id}/refund"))
	require.Positive(t, i)
	op := ref.Body[i:]
	op = op[:strings.Index(op, "</section>")]
	for _, want := range []string{"Parameters", "Idempotency-Key", "Request body", "Responses", "Example", "curl -X POST",
		`-H &#34;Authorization: $KEY&#34;`, "An answer:", `href="/docs/api#code-amount_exceeds_capturable"`} {
		assert.Contains(t, op, want)
	}
	// Grouped by area, schemas and error codes after.
	for _, want := range []string{`id="tag-transactions"`, `id="schemas"`, `id="schema-transaction"`, `id="errors"`, `id="code-body_invalid"`} {
		assert.Contains(t, ref.Body, want)
	}
	assert.Less(t, strings.Index(ref.Body, opHead("GET", "/v1/transactions/{id}")), strings.Index(ref.Body, `id="schemas"`))
}

func TestDocsAPISearchNarrowsOnTheServer(t *testing.T) {
	e := newEnv(t, embedded)
	c := e.client()
	all := len(operations(t))
	p := c.get("/docs/api?q=refund")
	assertDocsPage(t, p, 200, "search")
	m := countRe.FindStringSubmatch(p.Body)
	require.NotNil(t, m, "the page says how many match")
	n, _ := strconv.Atoi(m[1])
	assert.Positive(t, n)
	assert.Less(t, n, all)
	assert.Equal(t, strconv.Itoa(all), m[2])
	assert.Contains(t, p.Body, opHead("POST", "/v1/transactions/{id}/refund"))
	assert.NotContains(t, p.Body, opHead("GET", "/v1/gate/catalog"))
	assert.Contains(t, p.Body, `value="refund"`, "the box keeps the query")
	// Every word must match; case does not matter.
	two := c.get("/docs/api?q=" + "REFUND%20transactions")
	m2 := countRe.FindStringSubmatch(two.Body)
	require.NotNil(t, m2)
	n2, _ := strconv.Atoi(m2[1])
	assert.LessOrEqual(t, n2, n)
	assert.Positive(t, n2)
	none := c.get("/docs/api?q=zzzznothing")
	assert.Contains(t, none.Body, "0 of "+strconv.Itoa(all)+" operations match")
	assert.Equal(t, 400, c.get("/docs/api?q="+strings.Repeat("a", dashboard.MaxQuery+1)).Status)
	assert.Equal(t, 200, c.get("/docs/api?q="+strings.Repeat("a", dashboard.MaxQuery)).Status, "the documented maximum")
	assert.Equal(t, 200, c.get("/docs/api?q="+strings.Repeat("%C3%A9", dashboard.MaxQuery)).Status, "characters, not bytes")
}

// TestDocsConcurrentFirstRequests: the site is rendered once, on the first
// request for it; many requests at once all get their page (run alone,
// with -race, they are the first).
func TestDocsConcurrentFirstRequests(t *testing.T) {
	e := newEnv(t, embedded)
	paths := []string{"/docs", "/docs/api", "/docs/api?q=capture", "/docs/errors", "/docs/missing"}
	var wg sync.WaitGroup
	status := make([]int, 40)
	for i := range status {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := http.Get(e.URL + paths[i%len(paths)])
			if err == nil {
				status[i] = res.StatusCode
				res.Body.Close()
			}
		}()
	}
	wg.Wait()
	for i, s := range status {
		want := 200
		if strings.HasSuffix(paths[i%len(paths)], "missing") {
			want = 404
		}
		assert.Equal(t, want, s, paths[i%len(paths)])
	}
}

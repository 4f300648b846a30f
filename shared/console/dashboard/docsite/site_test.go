package docsite

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/openapi"
)

func TestGuidesRenderWithTheirLinksRewritten(t *testing.T) {
	s, err := load(os.DirFS("testdata/guides"), openapi.Document())
	require.NoError(t, err)
	pages := s.pages
	require.Len(t, pages, 2)
	assert.Equal(t, Page{Name: "alpha", Title: "Alpha guide", Summary: "The first paragraph, with code."}, Page{Name: pages[0].Name, Title: pages[0].Title, Summary: pages[0].Summary})
	b, ok, err := s.Guide("alpha")
	require.NoError(t, err)
	require.True(t, ok)
	body := string(b)
	for _, want := range []string{
		`<a href="/docs/beta">beta</a>`, `<a href="/docs/beta#second">its section</a>`, `<a href="#alpha-guide">this one's</a>`,
		`<a href="https://stripe.com/docs">Stripe</a>`, `<a href="/docs/api">the API</a>`,
		"the README,", "a folder file,", "an image", // files of the repository: their text, unlinked
		`<h1 id="alpha-guide">`, `<td align="left">1</td>`,
	} {
		assert.Contains(t, body, want)
	}
	for _, not := range []string{"README.md", "img/x.png", "<script>alert", "style="} {
		assert.NotContains(t, body, not)
	}
	b, _, _ = s.Guide("beta")
	assert.Contains(t, string(b), `<a href="/docs/alpha">alpha</a>`)
	assert.Contains(t, string(b), `<h2 id="second">`)
	_, ok, err = s.Guide("gamma")
	assert.False(t, ok)
	assert.NoError(t, err)
}

func TestAGuideCalledAPIIsRefused(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(dir+"/api.md", []byte("# API\n"), 0o600))
	_, err := load(os.DirFS(dir), openapi.Document())
	assert.ErrorContains(t, err, "api.md")
}

func TestErrorCodesOfTheDocumentHaveTheirMeaning(t *testing.T) {
	s, err := Load()
	require.NoError(t, err)
	require.NotEmpty(t, s.ref.codes)
	for _, c := range s.ref.codes {
		assert.NotEmpty(t, c.Status, "%s: docs/errors.md gives every code of the document its status", c.Code)
		assert.NotEmpty(t, c.Meaning, c.Code)
	}
	assert.Len(t, s.ref.codes, len(s.errors), "docs/errors.md and the document's ErrorCode enum list the same codes")
}

func TestExamplesAreMadeFromTheSchemas(t *testing.T) {
	s, err := Load()
	require.NoError(t, err)
	for _, tag := range s.ref.tags {
		for _, op := range tag.Ops {
			assert.True(t, strings.HasPrefix(op.Example, "curl "), op.ID)
			assert.Contains(t, op.Example, "$API", op.ID)
			url, _, _ := strings.Cut(op.Example, "\n")
			assert.NotContains(t, url, "{", "%s: path parameters filled in", op.ID)
		}
	}
}

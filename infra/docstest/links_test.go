package docstest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadmeIsShort holds README.md to issue 29's bound: the guides in
// docs/ carry the rest.
func TestReadmeIsShort(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	assert.LessOrEqual(t, strings.Count(string(b), "\n"), 200, "README.md is at most 200 lines; move the rest into a guide under docs/")
}

// markdownLink is a Markdown link's target: ](target).
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestLinksResolve: every relative link of README.md and the guides names a
// file of the repository, and a #fragment on a Markdown file one of its
// headings (GitHub's anchors: lower case, punctuation dropped, spaces as -).
func TestLinksResolve(t *testing.T) {
	for name, text := range pages(t) {
		for _, m := range markdownLink.FindAllStringSubmatch(withoutCode(text), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			path := filepath.Join(root, filepath.Dir(name), file)
			if file == "" {
				path = filepath.Join(root, name)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %s: no such file", name, target)
				continue
			}
			if frag != "" && strings.HasSuffix(path, ".md") {
				b, err := os.ReadFile(path)
				require.NoError(t, err)
				if !anchors(string(b))[frag] {
					t.Errorf("%s: link %s: no heading with that anchor", name, target)
				}
			}
		}
	}
}

// withoutCode is a page without its fenced blocks, whose brackets are code.
func withoutCode(text string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			in = !in
			continue
		}
		if !in {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

var notInAnchor = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)

// anchors are a page's heading anchors as GitHub makes them.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(withoutCode(text), "\n") {
		if h := strings.TrimLeft(line, "#"); h != line && strings.HasPrefix(h, " ") {
			a := notInAnchor.ReplaceAllString(strings.ToLower(strings.TrimSpace(h)), "")
			out[strings.ReplaceAll(a, " ", "-")] = true
		}
	}
	return out
}

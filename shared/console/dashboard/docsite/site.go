// Package docsite renders the documentation the service serves under /docs:
// the guides (docs/*.md, embedded at build time by package docs) as HTML
// pages, an index of them, and an API reference generated from the OpenAPI
// document the service serves at /openapi.json (reference.go). It renders
// pages and speaks no HTTP: the dashboard binds its routes and sends every
// page with the dashboard's security headers.
//
// The Markdown is read as GitHub reads it, so the same files work in both
// places: a relative link to another guide (errors.md, errors.md#400) is
// rewritten to its page (/docs/errors, /docs/errors#400); a relative link
// out of docs/ (../README.md) names a file of the repository, which the
// service does not serve, so it is shown as its text, unlinked. Raw HTML in
// the Markdown is not rendered.
package docsite

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/paygate/paygate/docs"
	"github.com/paygate/paygate/shared/platform/openapi"
)

// Page is one guide: its name (the file name without .md, its path under
// /docs), its title (the first heading) and its first paragraph's text.
type Page struct {
	Name, Title, Summary string
	body                 template.HTML
}

// Path is the page's address.
func (p Page) Path() string { return "/docs/" + p.Name }

// Site is the rendered guides.
type Site struct {
	pages  []Page // by name
	byName map[string]int
	errors []errorCode // the error-code table of errors.md
	ref    *Reference
}

//go:embed templates/*.html
var templateFS embed.FS

var templates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").ParseFS(templateFS, "templates/*.html"))
})

// Load renders every guide of docs.FS once (the service calls it once and
// keeps the Site).
func Load() (*Site, error) { return load(docs.FS, openapi.Document()) }

func load(fsys fs.FS, document []byte) (*Site, error) {
	names, err := fs.Glob(fsys, "*.md")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	s := &Site{byName: map[string]int{}}
	md := markdown(links{})
	for _, n := range names {
		src, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(n, ".md")
		if name == "api" {
			return nil, fmt.Errorf("docsite: docs/api.md would hide the API reference at /docs/api")
		}
		p, err := render(md, name, src)
		if err != nil {
			return nil, fmt.Errorf("docsite: %s: %w", n, err)
		}
		s.byName[name] = len(s.pages)
		s.pages = append(s.pages, p)
		if name == "errors" {
			s.errors = parseErrorCodes(src)
		}
	}
	if s.ref, err = s.newReference(document); err != nil {
		return nil, err
	}
	return s, nil
}

// Lookup is the guide called name.
func (s *Site) Lookup(name string) (Page, bool) {
	i, ok := s.byName[name]
	if !ok {
		return Page{}, false
	}
	return s.pages[i], true
}

// layoutData is what the layout draws around a page.
type layoutData struct {
	Title string
	Nav   string // "guides" or "api"
	Pages []Page
	Body  any
}

func (s *Site) draw(name string, d layoutData) ([]byte, error) {
	d.Pages = s.pages
	var buf bytes.Buffer
	if err := templates().ExecuteTemplate(&buf, name, d); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Index is the /docs page: every guide with its summary.
func (s *Site) Index() ([]byte, error) {
	return s.draw("index.html", layoutData{Title: "Documentation", Nav: "guides"})
}

// Guide is the /docs/{name} page; ok is false for no such guide.
func (s *Site) Guide(name string) (page []byte, ok bool, err error) {
	p, ok := s.Lookup(name)
	if !ok {
		return nil, false, nil
	}
	b, err := s.draw("guide.html", layoutData{Title: p.Title, Nav: name, Body: p.body})
	return b, true, err
}

// NotFound is the page of an unknown guide.
func (s *Site) NotFound(name string) ([]byte, error) {
	return s.draw("notfound.html", layoutData{Title: "No such page", Body: name})
}

// markdown is the Markdown renderer: GitHub's flavour (tables, strike
// through, autolinks, task lists), ids on headings (for links to a
// section), links between guides rewritten to their pages. Table cells'
// alignment is an align attribute: a style attribute would be refused by
// the pages' Content-Security-Policy.
func markdown(l links) goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions( // extension.GFM, with its table's alignment as attributes
			extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
			extension.Strikethrough, extension.Linkify, extension.TaskList),
		goldmark.WithParserOptions(
			parser.WithAutoHeadingID(),
			parser.WithASTTransformers(util.Prioritized(l, 100)),
		),
	)
}

func render(md goldmark.Markdown, name string, src []byte) (Page, error) {
	p := Page{Name: name, Title: name}
	doc := md.Parser().Parse(text.NewReader(src))
	titled := false
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			if n.Level == 1 && !titled {
				p.Title, titled = plain(n, src), true
			}
			return ast.WalkSkipChildren, nil
		case *ast.Paragraph:
			if p.Summary == "" {
				p.Summary = plain(n, src)
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	var buf bytes.Buffer
	if err := md.Renderer().Render(&buf, src, doc); err != nil {
		return Page{}, err
	}
	p.body = template.HTML(buf.String()) // goldmark escapes text and drops raw HTML
	return p, nil
}

// plain is a node's text without markup.
func plain(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimSpace(b.String())
}

// links rewrites the guides' relative links (see the package comment). In
// the reference's descriptions (rooted), a link rooted at the site is
// unlinked unless it is a page of the service's: the checkout face's
// descriptions are Adyen's, whose rooted links are Adyen's pages.
type links struct{ rooted bool }

func (l links) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	var unlink []*ast.Link
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		link, ok := n.(*ast.Link)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		to, keep := l.rewrite(string(link.Destination))
		if l.rooted && strings.HasPrefix(to, "/") && !strings.HasPrefix(to, "/docs") && to != "/openapi.json" {
			keep = false
		}
		if !keep {
			unlink = append(unlink, link)
		}
		link.Destination = []byte(to)
		return ast.WalkContinue, nil
	})
	for _, link := range unlink {
		parent := link.Parent()
		for c := link.FirstChild(); c != nil; c = link.FirstChild() {
			parent.InsertBefore(parent, link, c)
		}
		parent.RemoveChild(parent, link)
	}
}

// rewrite is a link's destination as served; keep is false for a link
// to a file the service does not serve.
func (l links) rewrite(dest string) (to string, keep bool) {
	if dest == "" || strings.HasPrefix(dest, "#") || strings.HasPrefix(dest, "/") || strings.Contains(dest, "://") ||
		strings.HasPrefix(dest, "mailto:") {
		return dest, true
	}
	file, frag, _ := strings.Cut(dest, "#")
	if frag != "" {
		frag = "#" + frag
	}
	clean := path.Clean(file)
	if strings.HasPrefix(clean, "../") || clean == ".." || strings.Contains(clean, "/") || !strings.HasSuffix(clean, ".md") {
		return dest, false // outside docs/ or not a guide: a file of the repository
	}
	// A link to a missing guide stays a link (to a 404): the browser test
	// finds it.
	return "/docs/" + strings.TrimSuffix(clean, ".md") + frag, true
}

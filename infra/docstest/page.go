package docstest

import (
	"bufio"
	"fmt"
	"strings"
)

// Expectation is one `# -> ...` line (with its continuation lines) of a page:
// what the curl above it must have answered.
type Expectation struct {
	Line    int    // its line in the page, 1-based
	Text    string // as written, after "# -> "
	Status  int    // 0: any
	Pattern any    // nil: the status alone is checked
}

// Page is a Markdown page's sh examples as one bash script.
type Page struct {
	Name   string // its path, as reported
	Blocks int
	Script string        // the blocks, in order, with every expectation replaced by `__expect N`
	Expect []Expectation // N indexes this
}

// expectPrefix starts an expectation line inside a sh block.
const expectPrefix = "# -> "

// ParsePage reads the fenced sh blocks of a Markdown page. An expectation
// runs on while its JSON is open: the lines after it that start with "#" go
// on it until its brackets close; anything after the closing bracket is prose
// and ignored.
func ParsePage(name, text string) (*Page, error) {
	p := &Page{Name: name}
	var script strings.Builder
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	in := false // inside a sh block
	var fence string
	var open *Expectation // an expectation whose JSON is still open
	finish := func() error {
		if open == nil {
			return nil
		}
		e := *open
		open = nil
		status, pat, err := ParseExpectation(e.Text)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, e.Line, err)
		}
		e.Status, e.Pattern = status, pat
		fmt.Fprintf(&script, "__expect %d\n", len(p.Expect))
		p.Expect = append(p.Expect, e)
		return nil
	}
	for sc.Scan() {
		n++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if !in {
			if strings.HasPrefix(trimmed, "```") {
				info := strings.TrimSpace(strings.TrimLeft(trimmed, "`"))
				fence = trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, "`"))]
				if info == "sh" {
					in = true
					p.Blocks++
					fmt.Fprintf(&script, "__block %q\n", fmt.Sprintf("%s:%d", name, n))
				} else {
					// Another block: skip to its end.
					if err := skipBlock(sc, &n, fence); err != nil {
						return nil, fmt.Errorf("%s:%d: %w", name, n, err)
					}
				}
			}
			continue
		}
		if trimmed == fence {
			if err := finish(); err != nil {
				return nil, err
			}
			in = false
			continue
		}
		if open != nil {
			if strings.HasPrefix(trimmed, "#") && !strings.HasPrefix(trimmed, expectPrefix) && !balanced(open.Text) {
				open.Text += " " + strings.TrimSpace(strings.TrimPrefix(trimmed, "#"))
				continue
			}
			if err := finish(); err != nil {
				return nil, err
			}
		}
		if rest, ok := strings.CutPrefix(trimmed, expectPrefix); ok {
			open = &Expectation{Line: n, Text: strings.TrimSpace(rest)}
			continue
		}
		script.WriteString(line)
		script.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if in {
		return nil, fmt.Errorf("%s: a sh block is not closed", name)
	}
	p.Script = script.String()
	return p, nil
}

// skipBlock reads to the closing fence of a block that is not run.
func skipBlock(sc *bufio.Scanner, n *int, fence string) error {
	for sc.Scan() {
		*n++
		if strings.TrimSpace(sc.Text()) == fence {
			return nil
		}
	}
	return fmt.Errorf("a fenced block is not closed")
}

// balanced reports whether the JSON that starts in s (at its first { or [)
// is closed, or there is none.
func balanced(s string) bool {
	i := strings.IndexAny(s, "{[")
	if i < 0 {
		return true
	}
	_, ok := jsonEnd(s[i:])
	return ok
}

// jsonEnd is the length of the bracketed JSON value s starts with, strings
// respected; ok is false while it is open.
func jsonEnd(s string) (int, bool) {
	depth := 0
	inStr := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		}
	}
	return 0, false
}

package docstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// ellipsis stands, in a parsed pattern, for the `...` written outside a
// string: in an object, any other members (the key is ignored); in an array,
// any further elements; as a value, any value.
const ellipsis = "\x00..."

// ParseExpectation reads an expectation: an optional HTTP status, then an
// optional JSON shape (an object or an array) in which `...` is a wildcard;
// prose after the shape is ignored. One of the two must be there.
func ParseExpectation(text string) (status int, pattern any, err error) {
	rest := strings.TrimSpace(text)
	if len(rest) >= 3 && isDigits(rest[:3]) && (len(rest) == 3 || rest[3] == ' ' || rest[3] == ':' || rest[3] == ',') {
		status, _ = strconv.Atoi(rest[:3])
		rest = strings.TrimSpace(rest[3:])
	}
	if !strings.HasPrefix(rest, "{") && !strings.HasPrefix(rest, "[") {
		if status == 0 {
			return 0, nil, fmt.Errorf("expectation %q: neither a status nor a JSON object or array (prose goes in a comment of its own, without ->)", text)
		}
		return status, nil, nil
	}
	end, ok := jsonEnd(rest)
	if !ok {
		return 0, nil, fmt.Errorf("expectation %q: its JSON is not closed", text)
	}
	src := markEllipses(rest[:end])
	dec := json.NewDecoder(strings.NewReader(src))
	dec.UseNumber()
	if err := dec.Decode(&pattern); err != nil {
		return 0, nil, fmt.Errorf("expectation %q: not JSON with ... wildcards: %v", text, err)
	}
	return status, pattern, nil
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// markEllipses turns every `...` outside a string into valid JSON that holds
// the ellipsis marker: a member in an object, an element in an array, a value
// after a colon.
func markEllipses(s string) string {
	var b strings.Builder
	var stack []byte
	inStr := false
	last := byte(0) // the last byte written outside a string, spaces left out
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inStr {
			b.WriteByte(c)
			if c == '\\' && i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			} else if c == '"' {
				inStr = false
				last = '"'
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			stack = append(stack, c)
		case (c == '}' || c == ']') && len(stack) > 0:
			stack = stack[:len(stack)-1]
		case strings.HasPrefix(s[i:], "..."):
			marker, _ := json.Marshal(ellipsis)
			switch {
			case last == ':' || len(stack) == 0:
				b.Write(marker)
			case stack[len(stack)-1] == '{':
				b.Write(marker)
				b.WriteString(":null")
			default:
				b.Write(marker)
			}
			i += 2
			last = '"'
			continue
		}
		b.WriteByte(c)
		if c != ' ' && c != '\t' {
			last = c
		}
	}
	return b.String()
}

// Match reports how got (a JSON answer) differs from pattern, "" when it
// matches: objects match when every member of the pattern matches (other
// members are allowed); arrays element by element, any further ones allowed
// only after a trailing `...`; a string with `...` in it is a glob ("0190..."
// is a prefix; "..." alone any value of any type); numbers by value.
func Match(pattern any, got []byte) string {
	dec := json.NewDecoder(bytes.NewReader(got))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Sprintf("the answer is not JSON (%v): %.300s", err, got)
	}
	return match("$", pattern, v)
}

func match(path string, want, got any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: want an object, got %s", path, show(got))
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k == ellipsis {
				continue
			}
			gv, ok := g[k]
			if !ok {
				return fmt.Sprintf("%s.%s: missing (the answer has %s)", path, k, memberNames(g))
			}
			if d := match(path+"."+k, w[k], gv); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("%s: want an array, got %s", path, show(got))
		}
		open := len(w) > 0 && w[len(w)-1] == ellipsis
		if open {
			w = w[:len(w)-1]
		}
		if len(g) < len(w) || (!open && len(g) != len(w)) {
			return fmt.Sprintf("%s: want %d elements%s, got %d", path, len(w), map[bool]string{true: " or more"}[open], len(g))
		}
		for i := range w {
			if d := match(fmt.Sprintf("%s[%d]", path, i), w[i], g[i]); d != "" {
				return d
			}
		}
		return ""
	case string:
		if w == ellipsis || w == "..." {
			return ""
		}
		g, ok := got.(string)
		if !ok {
			return fmt.Sprintf("%s: want the string %q, got %s", path, w, show(got))
		}
		if !glob(w, g) {
			return fmt.Sprintf("%s: want %q, got %q", path, w, g)
		}
		return ""
	case json.Number:
		g, ok := got.(json.Number)
		if !ok {
			return fmt.Sprintf("%s: want the number %s, got %s", path, w, show(got))
		}
		a, _ := new(big.Float).SetString(w.String())
		b, _ := new(big.Float).SetString(g.String())
		if a == nil || b == nil || a.Cmp(b) != 0 {
			return fmt.Sprintf("%s: want %s, got %s", path, w, g)
		}
		return ""
	default: // true, false, null
		if want != got {
			return fmt.Sprintf("%s: want %s, got %s", path, show(want), show(got))
		}
		return ""
	}
}

// glob matches s against a pattern whose `...` stand for any run of text;
// in a longer run of dots the dots before the last three are literal
// ("e1.cs1...." is "e1.cs1." and then anything).
func glob(pattern, s string) bool {
	var re strings.Builder
	re.WriteString("^")
	rest := pattern
	for {
		loc := dots.FindStringIndex(rest)
		if loc == nil {
			break
		}
		re.WriteString(regexp.QuoteMeta(rest[:loc[0]] + strings.Repeat(".", loc[1]-loc[0]-3)))
		re.WriteString("(?s:.*)")
		rest = rest[loc[1]:]
	}
	re.WriteString(regexp.QuoteMeta(rest) + "$")
	return regexp.MustCompile(re.String()).MatchString(s)
}

var dots = regexp.MustCompile(`\.{3,}`)

func memberNames(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

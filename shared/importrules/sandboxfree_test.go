package importrules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestNoSandboxInTheAreasOrTheDomain: what a sandbox is (its names, its
// URLs, its test cards, accounts and phone numbers) lives under
// shared/sandbox, behind the port the area defines; the areas and the domain
// name none of it in code. Messages may still say "sandbox" (an answer to a
// test key is the sandbox's), but no identifier does.
func TestNoSandboxInTheAreasOrTheDomain(t *testing.T) {
	var files int
	for _, root := range []string{"../pay", "../gate", "../console", "../domain"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			files++
			for _, f := range sandboxFindings(t, path) {
				t.Errorf("%s", f)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 100 {
		t.Fatalf("scanned only %d files", files)
	}
}

// TestTheSandboxScanFindsWhatItLooksFor: the scan is not vacuous.
func TestTheSandboxScanFindsWhatItLooksFor(t *testing.T) {
	src := `package x
var sandboxCards = map[string]string{"4111 1111 1111 1111": "ok"}
const acs = "https://sandbox.paygate.test/3ds2/challenge"
var iban, phone = "KZ86125KZT5004100100", "+77000000001"
func SandboxOutcome() {}
var fine = "the sandbox opens them for test keys only"
`
	path := filepath.Join(t.TempDir(), "x.go")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	got := sandboxFindings(t, path)
	if len(got) != 6 {
		t.Fatalf("want 6 findings (two names, a card, a URL, an IBAN, a phone), got %d: %q", len(got), got)
	}
}

var (
	ibanLiteral  = regexp.MustCompile(`^KZ\d{2}[0-9A-Z]{16}$`)
	phoneLiteral = regexp.MustCompile(`^\+?7\d{10}$`)
	cardLiteral  = regexp.MustCompile(`^[0-9 ]{13,23}$`)
)

func sandboxFindings(t *testing.T, path string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if strings.Contains(strings.ToLower(n.Name), "sandbox") {
				out = append(out, fset.Position(n.Pos()).String()+": the identifier "+n.Name+" names the sandbox: it belongs under shared/sandbox")
			}
		case *ast.BasicLit:
			if n.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(n.Value)
			if err != nil {
				return true
			}
			where := fset.Position(n.Pos()).String()
			switch {
			case strings.Contains(s, "paygate.test"):
				out = append(out, where+": a sandbox URL")
			case cardLiteral.MatchString(s) && luhn(strings.ReplaceAll(s, " ", "")):
				out = append(out, where+": a test card number")
			case ibanLiteral.MatchString(s):
				out = append(out, where+": a test IBAN")
			case phoneLiteral.MatchString(s):
				out = append(out, where+": a test phone number")
			}
		}
		return true
	})
	return out
}

func luhn(digits string) bool {
	if len(digits) < 13 || len(digits) > 19 {
		return false
	}
	sum := 0
	for i := range len(digits) {
		d := int(digits[len(digits)-1-i] - '0')
		if d < 0 || d > 9 {
			return false
		}
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

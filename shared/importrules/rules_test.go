// Package importrules holds the import rules of the tree as tests: the
// layers of shared/ (layers_test.go; shared/README.md draws the map), which
// files may speak HTTP, and which may see AWS Lambda's event types. Services
// take typed input and return typed results or kinded errors; only the HTTP
// layer knows HTTP, and only the app layer knows how Lambda delivers queue
// messages and stream records.
package importrules

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/paygate/paygate/"

// A source file of the tree (never a test), with what it imports.
type file struct {
	path    string // relative to the repository root, slash-separated
	dir     string
	name    string
	imports []string
}

func sources(t *testing.T) []file {
	t.Helper()
	var out []file
	root := "../.."
	fset := token.NewFileSet()
	err := filepath.WalkDir(filepath.Join(root, "shared"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		x := file{path: rel, dir: filepath.ToSlash(filepath.Dir(rel)), name: filepath.Base(rel)}
		for _, im := range f.Imports {
			v, _ := strconv.Unquote(im.Path.Value)
			x.imports = append(x.imports, v)
		}
		out = append(out, x)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 100 {
		t.Fatalf("found only %d source files under shared/: the walk is broken", len(out))
	}
	return out
}

func under(dir string, prefixes ...string) bool {
	for _, p := range prefixes {
		if dir == p || strings.HasPrefix(dir, p+"/") {
			return true
		}
	}
	return false
}

// httpPackages are HTTP through and through, or stand where the service
// meets HTTP:
//   - the platform's HTTP layer (httpapi), the app layer that serves it on
//     Lambda and locally, the wiring that builds the functions' route
//     groups, and the registry where each group declares its routes;
//   - apierr: the one table from an error's kind to its HTTP status;
//   - the dashboard (a web application), health and the Drop-in's assets
//     (nothing but pages);
//   - the outbound webhook client and the signature helpers a merchant's
//     receiver uses;
//   - the AWS adapters, which read their SDK's HTTP responses;
//   - the test kits.
var httpPackages = []string{
	"shared/platform/httpapi", "shared/platform/app", "shared/platform/wiring", "shared/platform/registry", "shared/platform/apierr",
	"shared/console/dashboard", "shared/platform/health", "shared/pay/dropin",
	"shared/console/webhooks/outbound", "shared/console/webhooks/signature",
	"shared/aws/dynamostore", "shared/aws/sqsqueue", "shared/aws/ssmkeys", "shared/aws/kmskeys", "shared/aws/xray",
	"shared/testkit",
}

// testKit reports whether dir is a package of test helpers (its name ends
// in "test": apitest, storetest, remittancetest, ...), linked by tests only.
func testKit(dir string) bool { return strings.HasSuffix(dir, "test") }

// httpFile reports whether a file of an area is its HTTP layer: its group
// declaration, its route bindings and its builders (build.go), which hand
// the bound groups to app.
func httpFile(name string) bool {
	return name == "group.go" || name == "routes.go" || strings.HasPrefix(name, "routes_") || name == "build.go"
}

// clientFile reports whether a file calls an outside system over HTTP, as a
// client (net/http only, never the platform's httpapi).
func clientFile(name string) bool { return name == "client.go" || strings.HasPrefix(name, "client_") }

// TestOnlyTheHTTPLayerSpeaksHTTP: no file outside the HTTP layer imports
// net/http or shared/platform/httpapi.
func TestOnlyTheHTTPLayerSpeaksHTTP(t *testing.T) {
	for _, f := range sources(t) {
		if under(f.dir, httpPackages...) || testKit(f.dir) || httpFile(f.name) {
			continue
		}
		for _, im := range f.imports {
			switch {
			case im == module+"shared/platform/httpapi":
				t.Errorf("%s imports shared/platform/httpapi: only group.go, routes*.go and build.go of an area bind HTTP", f.path)
			case im == "net/http" && !clientFile(f.name):
				t.Errorf("%s imports net/http: HTTP belongs in group.go and routes*.go, an outside system's HTTP client in client*.go", f.path)
			}
		}
	}
}

// TestOnlyTheAppLayerSeesLambdaEvents: consumers take queue.Message and
// store.Change; only the app layer (and the DynamoDB adapter's stream image
// codec) knows Lambda's event types.
func TestOnlyTheAppLayerSeesLambdaEvents(t *testing.T) {
	allowed := []string{"shared/platform/app", "shared/aws/dynamostore", "shared/testkit/apitest"}
	for _, f := range sources(t) {
		if slices.Contains(f.imports, "github.com/aws/aws-lambda-go/events") && !under(f.dir, allowed...) {
			t.Errorf("%s imports aws-lambda-go/events: consumers take typed messages from the app layer", f.path)
		}
	}
}

package importrules

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The layers of shared/ (shared/README.md draws the map): areas (pay/, gate/,
// console/) over the domain (domain/), the platform (platform/) and the
// ports (store/, queue/); aws/ holds every adapter that speaks to AWS,
// sandbox/ the stand-ins for outside systems, testkit/ what tests share.

// pkg is one package of the module with what it imports, directly and at
// any depth (go list: tests' imports are not counted).
type pkg struct {
	path    string // relative to the module, e.g. shared/pay/checkout
	imports []string
	deps    []string
}

func packages(t *testing.T) []pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}|{{join .Deps \" \"}}", "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var ps []pkg
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(line, "|")
		ps = append(ps, pkg{path: strings.TrimPrefix(parts[0], module), imports: strings.Fields(parts[1]), deps: strings.Fields(parts[2])})
	}
	if len(ps) < 80 {
		t.Fatalf("go list found only %d packages under shared/", len(ps))
	}
	return ps
}

// area is the area a package belongs to (shared/pay/checkout for
// shared/pay/checkout/sessiondata), or "" outside the areas.
func area(path string) string {
	for _, a := range []string{"shared/pay/", "shared/gate/", "shared/console/"} {
		if rest, ok := strings.CutPrefix(path, a); ok {
			name, _, _ := strings.Cut(rest, "/")
			return a + name
		}
	}
	return ""
}

// Known exceptions, each the work of a later step of the layers issue (27):
// remove the line when the step lands, and the test holds the rule from then.
var (
	// None left: an exception goes here with the step that removes it.
	crossAreaExceptions = map[string][]string{}
)

func inLayer(path string, layers ...string) bool { return under(path, layers...) }

// TestTheDomainStandsAlone: the domain (payments, ledger, money, ids, kzid,
// vault, the event log, metadata, remittance) reaches no area, no HTTP
// layer, no adapter and no sandbox, at any depth, and imports no net/http.
// (apierr, its errors' kinds, maps a kind to a status with net/http's
// constants: that is the platform's one table, not HTTP in the domain.)
func TestTheDomainStandsAlone(t *testing.T) {
	for _, p := range packages(t) {
		if !inLayer(p.path, "shared/domain") || testKit(p.path) {
			continue
		}
		if slices.Contains(p.imports, "net/http") {
			t.Errorf("%s imports net/http: the domain speaks no HTTP", p.path)
		}
		for _, d := range p.deps {
			rel := strings.TrimPrefix(d, module)
			switch {
			case inLayer(rel, "shared/pay", "shared/gate", "shared/console"):
				t.Errorf("%s depends on the area %s", p.path, rel)
			case inLayer(rel, "shared/platform/httpapi", "shared/platform/app", "shared/platform/wiring"):
				t.Errorf("%s depends on %s: the domain speaks no HTTP", p.path, rel)
			case inLayer(rel, "shared/aws", "shared/sandbox"), strings.HasPrefix(d, "github.com/aws/"):
				t.Errorf("%s depends on %s: the domain knows no adapter", p.path, rel)
			}
		}
	}
}

// TestAreasMeetThroughTheirServices: an area imports another area only at
// its root package (the service it exports), never its insides.
func TestAreasMeetThroughTheirServices(t *testing.T) {
	for _, p := range packages(t) {
		a := area(p.path)
		if a == "" {
			continue
		}
		for _, im := range p.imports {
			rel := strings.TrimPrefix(im, module)
			b := area(rel)
			if b == "" || b == a || rel == b || slices.Contains(crossAreaExceptions[a], rel) {
				continue
			}
			t.Errorf("%s imports %s, inside the area %s: use %s's service", p.path, rel, b, b)
		}
	}
}

// TestOnlyAWSAdaptersImportTheSDK: the AWS SDK is imported by shared/aws
// only, so every other package runs and is tested without it.
func TestOnlyAWSAdaptersImportTheSDK(t *testing.T) {
	for _, p := range packages(t) {
		if inLayer(p.path, "shared/aws") {
			continue
		}
		for _, im := range p.imports {
			if strings.HasPrefix(im, "github.com/aws/aws-sdk-go-v2") {
				t.Errorf("%s imports %s: the AWS SDK belongs in shared/aws", p.path, im)
			}
		}
	}
}

// TestOnlyTheWiringPicksASandbox: a stand-in for an outside system is
// chosen in one place (platform/connect, which the areas' builders ask,
// where a function's own connector, if set, wins), or by a test kit.
func TestOnlyTheWiringPicksASandbox(t *testing.T) {
	for _, p := range packages(t) {
		if inLayer(p.path, "shared/platform/connect", "shared/sandbox", "shared/testkit") {
			continue
		}
		for _, im := range p.imports {
			if rel := strings.TrimPrefix(im, module); inLayer(rel, "shared/sandbox") {
				t.Errorf("%s imports the sandbox %s: only platform/connect chooses a sandbox", p.path, rel)
			}
		}
	}
}

// TestPortsKnowNoAdapter: the store and queue ports, and the platform under
// the areas, import no adapter; the platform imports no area but through
// the wiring that builds them.
func TestPortsKnowNoAdapter(t *testing.T) {
	for _, p := range packages(t) {
		port := p.path == "shared/store" || p.path == "shared/queue"
		platform := inLayer(p.path, "shared/platform") && !inLayer(p.path, "shared/platform/wiring")
		if !port && !platform {
			continue
		}
		for _, im := range p.imports {
			rel := strings.TrimPrefix(im, module)
			if port && (inLayer(rel, "shared/aws") || strings.Contains(rel, "/bolt")) {
				t.Errorf("the port %s imports the adapter %s", p.path, rel)
			}
			if platform && area(rel) != "" {
				t.Errorf("%s imports the area %s: the platform serves areas, it does not know them", p.path, rel)
			}
		}
	}
}

// TestNoTwoPackagesShareAName: a package's name says which one it is.
func TestNoTwoPackagesShareAName(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.Name}} {{.ImportPath}}", "../../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, path, _ := strings.Cut(line, " ")
		if name == "main" {
			continue
		}
		if other, ok := seen[name]; ok {
			t.Errorf("package %s is both %s and %s", name, other, path)
		}
		seen[name] = path
	}
}

package docstest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/testkit/apitest/crashtest"
)

// root is the repository, from this package.
const root = "../.."

// pages are README.md and every guide, as the repository holds them.
func pages(t *testing.T) map[string]string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	names = append(names, filepath.Join(root, "README.md"))
	out := map[string]string{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		require.NoError(t, err)
		rel, err := filepath.Rel(root, n)
		require.NoError(t, err)
		out[rel] = string(b)
	}
	return out
}

// helpersRE finds the README's json helper: one line, as a reader pastes it.
var helpersRE = regexp.MustCompile(`(?m)^json\(\) \{.*\}$`)

// helpers is the README's json helper, defined for every page.
func helpers(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	h := helpersRE.FindString(string(b))
	require.NotEmpty(t, h, "README.md defines the json helper the examples use (a line `json() { ... }`)")
	return h
}

// bins are the programs the examples run against: the local gateway, and
// the admin CLI for a page that needs a client key.
type bins struct{ local, admin string }

// clientOrigin is the origin CLIENT_KEY is allowed from, as the pages that
// use it say.
const clientOrigin = "https://shop.example.com"

// gateway is the local gateway as `make run` serves it, on a fresh data
// directory with a fresh sandbox key. With clientKey it also makes a client
// key of the sandbox account with the admin CLI, as a reader would: the
// gateway holds the store, so it is stopped for that and started again.
func gateway(t *testing.T, b bins, clientKey bool) Env {
	t.Helper()
	var r [16]byte
	_, err := rand.Read(r[:])
	require.NoError(t, err)
	key := "sk_test_" + hex.EncodeToString(r[:])
	dir := t.TempDir()
	start := func() *crashtest.Proc {
		return crashtest.Start(t, b.local, map[string]string{"DATA_DIR": dir, "PORT": "0", "SANDBOX_API_KEY": key, "LOG_LEVEL": "error"},
			"paygate local gateway: ")
	}
	p := start()
	env := Env{API: p.Addr, Key: key}
	if !clientKey {
		return env
	}
	require.NotEmpty(t, b.admin, "the admin CLI is built for pages that use CLIENT_KEY")
	status, me, err := crashtest.Client{Key: key}.Do(p.Addr, "GET", "/v1/merchants/me", nil, "")
	require.NoError(t, err)
	require.Equal(t, 200, status, "%v", me)
	p.Kill()
	out, err := exec.Command(b.admin, "--data-dir", dir, "--json", "keys", "create", "--account", me["id"].(string),
		"--kind", "client", "--origin", clientOrigin, "--name", "docs examples").Output()
	require.NoError(t, err, "admin keys create: %s", out)
	var created struct {
		Secret string `json:"secret"`
	}
	require.NoError(t, json.Unmarshal(out, &created), "%s", out)
	require.True(t, strings.HasPrefix(created.Secret, "ck_test_"), "%s", out)
	p = start()
	return Env{API: p.Addr, Key: key, ClientKey: created.Secret}
}

// run runs one page against a gateway of its own.
func run(t *testing.T, b bins, name, text string) []string {
	t.Helper()
	p, err := ParsePage(name, text)
	require.NoError(t, err)
	env := gateway(t, b, strings.Contains(p.Script, "$CLIENT_KEY"))
	env.Helpers = helpers(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	failures, out := Run(ctx, p, env, t.TempDir())
	if len(failures) > 0 {
		t.Logf("%s's examples, as they ran:\n%s", name, tail(out, 6000))
	}
	return failures
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// TestExamples runs every sh example of every page, each page in one bash
// session against a gateway of its own, and checks every `# -> ` line.
func TestExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the local gateway")
	}
	b := bins{local: crashtest.Build(t, "../local"), admin: crashtest.Build(t, "../admin")}
	all := pages(t)
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	ran := 0
	for _, name := range names {
		if !strings.Contains(all[name], "```sh\n") {
			continue
		}
		ran++
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, f := range run(t, b, name, all[name]) {
				t.Error(f)
			}
		})
	}
	assert.Positive(t, ran, "no page has a sh example")
}

// TestBrokenExampleFails proves the check: the README's quick start with
// one documented answer changed, and with one command broken, each fails.
func TestBrokenExampleFails(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the local gateway")
	}
	b := bins{local: crashtest.Build(t, "../local")}
	readme := pages(t)["README.md"]
	require.Contains(t, readme, `# -> {"status":"ok",`)
	wrongAnswer := strings.Replace(readme, `# -> {"status":"ok",`, `# -> {"status":"broken",`, 1)
	failures := run(t, b, "README.md (answer changed)", wrongAnswer)
	require.NotEmpty(t, failures, "a changed answer must fail")
	assert.Contains(t, strings.Join(failures, "\n"), `$.status: want "broken", got "ok"`)

	require.Contains(t, readme, "$API/health")
	wrongPath := strings.Replace(readme, "$API/health", "$API/healthz", 1)
	failures = run(t, b, "README.md (command broken)", wrongPath)
	require.NotEmpty(t, failures, "a broken command must fail")
}

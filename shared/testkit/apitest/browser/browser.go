// Package browser starts the headless Chromium of the browser tests and the
// hosted page's benchmark: Debian's chromium (make test installs it,
// infra/scripts/chromium.sh), driven over the DevTools protocol by chromedp.
// The flags are the ones this closed network needs: no background
// networking, no component updates, no sync, no QUIC, no first-run work, and
// a fresh profile per browser, so Chromium calls nothing but the pages it is
// given.
package browser

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// Require is the variable that turns a missing browser into a failure
// (make test sets it, with REQUIRE_REAL_SERVERS).
const Require = "REQUIRE_BROWSER"

// Path is the Chromium to drive: $CHROMIUM, else Debian's, else "".
func Path() string {
	for _, p := range []string{os.Getenv("CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if p == "" {
			continue
		}
		if _, err := exec.LookPath(p); err == nil {
			return p
		}
	}
	return ""
}

// ErrNoBrowser is Start's error when no Chromium is installed.
var ErrNoBrowser = errors.New("no chromium: run infra/scripts/chromium.sh install (make test does)")

// Start launches a headless Chromium with a fresh profile in dir and
// returns its context; tabs are chromedp.NewContext children of it.
func Start(ctx context.Context, dir string) (context.Context, context.CancelFunc, error) {
	path := Path()
	if path == "" {
		return nil, nil, ErrNoBrowser
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(dir), chromedp.WindowSize(520, 900),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints"),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	if err := chromedp.Do(bctx); err != nil { // starts the browser
		cancelBrowser()
		cancelAlloc()
		return nil, nil, err
	}
	return bctx, func() { cancelBrowser(); cancelAlloc() }, nil
}

// New starts a browser for t, closed when t ends. Without Chromium the test
// is skipped, or fails where REQUIRE_BROWSER=1 (make test, CI).
func New(t testing.TB) context.Context {
	t.Helper()
	if Path() == "" {
		if os.Getenv(Require) == "1" {
			t.Fatalf("%v, and %s=1", ErrNoBrowser, Require)
		}
		t.Skip(ErrNoBrowser)
	}
	ctx, cancel, err := Start(context.Background(), t.TempDir())
	if err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	t.Cleanup(cancel)
	return ctx
}

// ScreenshotDir is where tests save the screenshots of their final screens
// for people to look at: $SCREENSHOT_DIR, else .cache/screenshots under the
// module's root.
func ScreenshotDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("SCREENSHOT_DIR")
	if dir == "" {
		root, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
				break
			}
			parent := filepath.Dir(root)
			if parent == root {
				t.Fatal("no go.mod above the test's directory")
			}
			root = parent
		}
		dir = filepath.Join(root, ".cache", "screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Screenshot saves a PNG of the tab's whole page as dir/name.png.
func Screenshot(t testing.TB, tab context.Context, dir, name string) string {
	t.Helper()
	png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
	return path
}

package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/platform/metrics"
)

// The smoke test runs against the real local gateway (what `make run`
// serves, built from ./infra/local and started over a throw-away data
// directory with a sandbox key), and against the same gateway behind a proxy
// that answers 500 on one step's request, to prove a broken step fails the
// run with its name.

type gateway struct {
	url, key, bin string
	log           string // the gateway's stdout and stderr
}

var gw *gateway

func TestMain(m *testing.M) {
	code := m.Run()
	if stopGateway != nil {
		stopGateway()
	}
	os.Exit(code)
}

var stopGateway func()

// startGateway starts the local gateway once for the package's tests.
func startGateway(t *testing.T) *gateway {
	t.Helper()
	if gw != nil {
		return gw
	}
	dir, err := os.MkdirTemp("", "paygate-smoke-")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "local")
	build := exec.Command("go", "build", "-o", bin, "../local")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./infra/local: %v\n%s", err, out)
	}
	smokeBin := filepath.Join(dir, "smoke")
	if out, err := exec.Command("go", "build", "-o", smokeBin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build ./infra/smoke: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	b := make([]byte, 16)
	rand.Read(b)
	key := "sk_test_" + hex.EncodeToString(b)
	logs, err := os.Create(filepath.Join(dir, "gateway.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "TMPDIR=" + os.TempDir(),
		"DATA_DIR=" + filepath.Join(dir, "data"), fmt.Sprintf("PORT=%d", port), "SANDBOX_API_KEY=" + key,
		"PAYGATE_EMF=stdout", "ENVIRONMENT=smoke",
		"IDEMPOTENCY_FINGERPRINT_KEY=smoke-test-idempotency-fingerprint-key"}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	stopGateway = func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		logs.Close()
		os.RemoveAll(dir)
	}
	u := fmt.Sprintf("http://127.0.0.1:%d", port)
	for deadline := time.Now().Add(60 * time.Second); ; {
		if resp, err := http.Get(u + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case <-done:
			log, _ := os.ReadFile(logs.Name())
			t.Fatalf("the gateway exited; its log:\n%s", log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the gateway did not answer GET /health within 60 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	gw = &gateway{url: u, key: key, bin: smokeBin, log: logs.Name()}
	return gw
}

func TestSmokePassesAgainstTheLocalGateway(t *testing.T) {
	g := startGateway(t)
	var log strings.Builder
	if err := Run(context.Background(), Config{URL: g.url, Key: g.key, Log: &log}); err != nil {
		t.Fatalf("%v\nsteps passed:\n%s", err, log.String())
	}
	for _, name := range StepNames() {
		if !strings.Contains(log.String(), "ok  "+name) {
			t.Errorf("step %q not reported as passed:\n%s", name, log.String())
		}
	}
	// The services wrote their business metrics (EMF lines on stdout, as in
	// Lambda) for what the run did: an order with its debit, a payment.
	out, err := os.ReadFile(g.log)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil || rec["_aws"] == nil || rec["Environment"] != "smoke" {
			continue
		}
		for _, m := range []string{metrics.OrdersPlaced, metrics.BalanceDebits, metrics.PaymentsAuthorised} {
			if rec[m] == 1.0 {
				seen[m] = true
			}
		}
	}
	if len(seen) != 3 {
		t.Errorf("EMF records seen for %v, want OrdersPlaced, BalanceDebits and PaymentsAuthorised", seen)
	}
}

// stepRequests is the request each step sends first that only it sends, so
// the proxy can break exactly that step.
var stepRequests = map[string]func(*http.Request) bool{
	"health":           func(r *http.Request) bool { return r.URL.Path == "/health" },
	"merchant details": func(r *http.Request) bool { return r.URL.Path == "/v1/merchants/me" },
	"catalog read":     func(r *http.Request) bool { return r.URL.Path == "/products" },
	"test deposit":     func(r *http.Request) bool { return r.URL.Path == "/test-helpers/deposits" },
	"order placed":     func(r *http.Request) bool { return r.Method == "POST" && r.URL.Path == "/orders" },
	"order completed":  func(r *http.Request) bool { return r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/orders/") },
	"checkout session": func(r *http.Request) bool { return r.URL.Path == "/v2/sessions" },
	"card payment":     func(r *http.Request) bool { return r.URL.Path == "/v2/payments" },
}

// failing is the gateway behind a proxy answering 500 to what fail matches.
func failing(t *testing.T, g *gateway, fail func(*http.Request) bool) *httptest.Server {
	target, _ := url.Parse(g.url)
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail(r) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(`{"error":{"type":"api_error","code":"internal_error","message":"broken on purpose"}}`))
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Each step, answered 500, stops the run with that step's name, the request
// and the status; the steps before it passed.
func TestSmokeFailsOnEachStepAnswering500(t *testing.T) {
	g := startGateway(t)
	if len(stepRequests) != len(StepNames()) {
		t.Fatalf("stepRequests covers %d steps, there are %d", len(stepRequests), len(StepNames()))
	}
	for i, name := range StepNames() {
		t.Run(name, func(t *testing.T) {
			srv := failing(t, g, stepRequests[name])
			var log strings.Builder
			err := Run(context.Background(), Config{URL: srv.URL, Key: g.key, Log: &log})
			var se *StepError
			if !errors.As(err, &se) || se.Step != name {
				t.Fatalf("err = %v, want step %q to fail\n%s", err, name, log.String())
			}
			if !strings.Contains(err.Error(), "answered 500, want") || !strings.Contains(err.Error(), "broken on purpose") {
				t.Errorf("the message does not say what answered: %v", err)
			}
			if passed := strings.Count(log.String(), "ok  "); passed != i {
				t.Errorf("%d steps reported passed before %q, want %d:\n%s", passed, name, i, log.String())
			}
		})
	}
}

// The command exits non-zero with a message naming the failed step, and 0
// with a summary when every step passes.
func TestSmokeCommandExitStatus(t *testing.T) {
	g := startGateway(t)
	srv := failing(t, g, stepRequests["order placed"])
	cmd := exec.Command(g.bin, "-url", srv.URL, "-key", g.key)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want status 1; output:\n%s", err, out)
	}
	if want := `smoke: FAILED against ` + srv.URL + `: step "order placed" failed: POST /orders answered 500, want 201`; !strings.Contains(string(out), want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	out, err = exec.Command(g.bin, "-url", g.url, "-key", g.key).CombinedOutput()
	if err != nil || !strings.Contains(string(out), fmt.Sprintf("smoke: ok, %d steps", len(StepNames()))) {
		t.Fatalf("against the gateway: %v\n%s", err, out)
	}
	out, err = exec.Command(g.bin, "-url", g.url, "-key", "sk_live_nope").CombinedOutput()
	if !errors.As(err, &ee) || !strings.Contains(string(out), "test-mode secret key") {
		t.Errorf("a live key: %v\n%s", err, out)
	}
}

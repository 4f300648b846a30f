package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// target is a server the load rows measure: where it is, the test-mode
// secret key that authenticates there, and how the table names it.
type target struct {
	name, url, key string
	pprof          string // the server's pprof listener (-profile), "" when it has none
}

// gateway is the local gateway (infra/local, what `make run` runs) started
// as its own process on 127.0.0.1 over a throw-away data directory.
type gateway struct {
	target
	cmd  *exec.Cmd
	dir  string
	done chan error // the process's exit
}

// Bounds of starting and stopping the gateway.
const (
	gatewayReady = 60 * time.Second
	gatewayStop  = 15 * time.Second // its own shutdown grace is 10 s
)

// startGateway builds ./infra/local, starts it with a temporary DATA_DIR, a
// free PORT and a fresh SANDBOX_API_KEY (so it seeds the sandbox account with
// the demo catalog and its deposit, as `make run` does), and waits for
// GET /health. Its logs go to a file in the data directory, named in errors.
// extraEnv is added to its environment (PPROF_ADDR for -profile).
func startGateway(ctx context.Context, root string, extraEnv ...string) (*gateway, error) {
	dir, err := os.MkdirTemp("", "paygate-bench-gateway-")
	if err != nil {
		return nil, err
	}
	g := &gateway{dir: dir, done: make(chan error, 1)}
	fail := func(err error) (*gateway, error) {
		g.stop()
		return nil, err
	}
	bin := filepath.Join(dir, "local")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./infra/local")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("go build ./infra/local: %w\n%s", err, out))
	}
	port, err := freePort()
	if err != nil {
		return fail(err)
	}
	key, err := sandboxKey()
	if err != nil {
		return fail(err)
	}
	logPath := filepath.Join(dir, "gateway.log")
	logs, err := os.Create(logPath)
	if err != nil {
		return fail(err)
	}
	defer logs.Close() // the child has its own descriptor
	g.cmd = exec.Command(bin)
	g.cmd.Dir = dir
	// A small, explicit environment: the figures must not depend on the
	// caller's LOG_LEVEL, STORE or AWS settings.
	g.cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "TMPDIR=" + os.TempDir(),
		"DATA_DIR=" + filepath.Join(dir, "data"), "PORT=" + strconv.Itoa(port), "SANDBOX_API_KEY=" + key,
	}
	g.cmd.Env = append(g.cmd.Env, extraEnv...)
	g.cmd.Stdout, g.cmd.Stderr = logs, logs
	if err := g.cmd.Start(); err != nil {
		return fail(err)
	}
	go func() { g.done <- g.cmd.Wait() }()
	g.target = target{name: "local gateway", url: fmt.Sprintf("http://127.0.0.1:%d", port), key: key}
	if err := g.waitHealthy(ctx, gatewayReady); err != nil {
		tail, _ := os.ReadFile(logPath)
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return fail(fmt.Errorf("local gateway: %w; its log ends:\n%s", err, tail))
	}
	return g, nil
}

// waitHealthy polls GET /health until it answers 200, the process exits, or
// the time is up.
func (g *gateway) waitHealthy(ctx context.Context, within time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.url+"/health", nil)
		if err != nil {
			return err
		}
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-g.done:
			g.done <- err // stop reads it again
			return fmt.Errorf("exited before serving: %v", err)
		case <-ctx.Done():
			return fmt.Errorf("GET /health did not answer 200 within %s", within)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// stop ends the gateway (SIGTERM, then SIGKILL if it has not exited within
// gatewayStop) and removes its directory. It is safe on a partly started
// gateway and returns how the process ended when that was abnormal.
func (g *gateway) stop() error {
	var err error
	if g.cmd != nil && g.cmd.Process != nil {
		_ = g.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err = <-g.done:
		case <-time.After(gatewayStop):
			_ = g.cmd.Process.Kill()
			<-g.done
			err = errors.New("local gateway ignored SIGTERM and was killed")
		}
	}
	if rmErr := os.RemoveAll(g.dir); err == nil {
		err = rmErr
	}
	return err
}

// freePort asks the kernel for a port nothing listens on. Another process
// could take it before the gateway does; the health wait then fails clearly.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// sandboxKey is a fresh test-mode secret key for this run only.
func sandboxKey() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "sk_test_bench" + hex.EncodeToString(b), nil
}

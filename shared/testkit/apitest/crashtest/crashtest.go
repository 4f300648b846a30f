// Package crashtest runs a server in a process of its own so a test can kill
// it with SIGKILL (no deferred code, no flush) and start it again on the same
// data: the crash tests of orders, the wallet, refunds, payouts, payment
// orders and the local gateway.
//
// Test side: Build compiles the server, Start runs it and waits for the line
// that says where it listens. Server side (a testdata main): Open gives the
// embedded store and queue in $DATA_DIR with the sandbox account of
// $SANDBOX_API_KEY, and Serve prints "LISTEN <addr>" and serves.
package crashtest

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/queue/boltqueue"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// Ready is the line prefix Serve prints before the address.
const Ready = "LISTEN "

// Build compiles the main package pkg (a path as go build takes it, relative
// to the test's package) into a temporary binary.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "server")
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// Proc is a started server.
type Proc struct {
	Addr string // host:port, from its ready line
	cmd  *exec.Cmd
	once sync.Once
}

// Start runs bin with env added to the test's environment and waits (up to
// 30 s) for a stdout line starting with ready; the rest of the line is Addr.
// The process is killed at the test's end if still running.
func Start(t testing.TB, bin string, env map[string]string, ready string) *Proc {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &Proc{cmd: cmd}
	t.Cleanup(p.Kill)
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), ready); ok {
				select {
				case addr <- strings.TrimSpace(a):
				default:
				}
			}
		}
	}()
	select {
	case p.Addr = <-addr:
		return p
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not print %q within 30 s", bin, ready)
		return nil
	}
}

// URL is the server's base URL.
func (p *Proc) URL() string { return "http://" + p.Addr }

// Kill sends SIGKILL and waits for the process to end; later calls do nothing.
func (p *Proc) Kill() {
	p.once.Do(func() {
		_ = p.cmd.Process.Kill()
		_, _ = p.cmd.Process.Wait()
	})
}

// Open opens the embedded store and queue in $DATA_DIR and the sandbox
// account of $SANDBOX_API_KEY (created on the first start, found after).
func Open(ctx context.Context) (*app.Deps, string, error) {
	dir, secret := os.Getenv("DATA_DIR"), os.Getenv("SANDBOX_API_KEY")
	st, err := boltstore.Open(filepath.Join(dir, "store.db"), nil)
	if err != nil {
		return nil, "", err
	}
	q, err := boltqueue.Open(filepath.Join(dir, "queue.db"), nil)
	if err != nil {
		return nil, "", err
	}
	d := app.WithStore(st, q, nil, nil)
	if k, err := d.Keys.Authenticate(ctx, secret); err == nil {
		return d, k.AccountID, nil
	}
	a, err := d.Accounts.Create(ctx, accounts.NewAccount{Name: "Sandbox", Mode: accounts.Test})
	if err != nil {
		return nil, "", err
	}
	if _, err := d.Keys.Import(ctx, a.ID, secret, "sandbox"); err != nil {
		return nil, "", err
	}
	return d, a.ID, nil
}

// Serve listens on a free loopback port, prints Ready and the address, and
// serves h until the process dies.
func Serve(h http.Handler) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println(Ready + ln.Addr().String())
	return http.Serve(ln, h)
}

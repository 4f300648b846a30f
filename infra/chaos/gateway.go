package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// banner is the line the local gateway prints once it serves.
const banner = "paygate local gateway: http://"

// gateway is the local gateway run as `make run` runs it with
// STORE=dynamodb and FAULTS, in its own process so it can be killed with
// SIGKILL and started again on the same tables, queues and checkpoints.
type gateway struct {
	bin  string
	env  []string
	port string
	logs io.Writer

	mu           sync.Mutex
	cmd          *exec.Cmd
	kills        int
	failedStarts int
}

// build compiles the local gateway into dir.
func build(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "gateway")
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "./infra/local").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build ./infra/local: %v\n%s", err, out)
	}
	return bin, nil
}

// freePort picks a loopback port for the whole run: a restarted gateway
// listens where the clients already send.
func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port, nil
}

func (g *gateway) url() string { return "http://127.0.0.1:" + g.port }

// start runs the gateway and waits for its banner.
func (g *gateway) start() error {
	cmd := exec.Command(g.bin)
	cmd.Env = append(os.Environ(), g.env...)
	cmd.Env = append(cmd.Env, "PORT="+g.port)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = g.logs
	if err := cmd.Start(); err != nil {
		return err
	}
	ready, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		sc := bufio.NewScanner(stdout)
		once := sync.Once{}
		for sc.Scan() {
			if strings.Contains(sc.Text(), banner) {
				once.Do(func() { close(ready) })
			}
			fmt.Fprintln(g.logs, sc.Text())
		}
	}()
	select {
	case <-ready:
	case <-ended:
		// It stopped before serving (its start-up met the faults too).
		_ = cmd.Wait()
		return errExited
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return fmt.Errorf("the gateway printed no banner within a minute")
	}
	g.mu.Lock()
	g.cmd = cmd
	g.mu.Unlock()
	return nil
}

// errExited: the gateway ended before its banner.
var errExited = errors.New("the gateway exited before serving")

// startRetrying starts the gateway, again when its start-up failed (a
// start-up reads and seeds the store through the same faults), as
// Lambda starts a new instance after a failed init.
func (g *gateway) startRetrying() error {
	var err error
	for range 10 {
		if err = g.start(); !errors.Is(err, errExited) {
			return err
		}
		g.mu.Lock()
		g.failedStarts++
		g.mu.Unlock()
	}
	return err
}

// kill9 kills the gateway with SIGKILL (no deferred code, no flush).
func (g *gateway) kill9() {
	g.mu.Lock()
	cmd := g.cmd
	g.cmd = nil
	g.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	g.mu.Lock()
	g.kills++
	g.mu.Unlock()
}

// stop ends the gateway at the end of the run (SIGTERM: it drains).
func (g *gateway) stop() {
	g.mu.Lock()
	cmd := g.cmd
	g.cmd = nil
	g.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

func (g *gateway) killCount() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.kills
}

package connectortest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// gateway is one local gateway (what `make run` serves), built from
// ./infra/local and run as its own process over its own data directory.
type gateway struct {
	name, url, dataDir, log string
	port                    int
	bin                     string
	env                     []string
	cmd                     *exec.Cmd
	done                    chan struct{}
}

// bins builds the local gateway and the admin CLI once per test binary.
var bins struct{ local, admin string }

func build(t *testing.T) {
	t.Helper()
	if bins.local != "" {
		return
	}
	dir, err := os.MkdirTemp("", "paygate-connector-")
	require.NoError(t, err)
	for _, b := range []struct {
		dst *string
		pkg string
	}{{&bins.local, "../local"}, {&bins.admin, "../admin"}} {
		out := filepath.Join(dir, filepath.Base(b.pkg))
		if o, err := exec.Command("go", "build", "-o", out, b.pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", b.pkg, err, o)
		}
		*b.dst = out
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// newGateway prepares a gateway named name (not started): its data
// directory, port and environment.
func newGateway(t *testing.T, name string) *gateway {
	t.Helper()
	build(t)
	dir := t.TempDir()
	g := &gateway{name: name, dataDir: filepath.Join(dir, "data"), log: filepath.Join(dir, name+".log"), port: freePort(t), bin: bins.local}
	g.url = fmt.Sprintf("http://127.0.0.1:%d", g.port)
	g.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "TMPDIR=" + os.TempDir(),
		"DATA_DIR=" + g.dataDir, fmt.Sprintf("PORT=%d", g.port), "ENVIRONMENT=local", "PAYGATE_EMF=off"}
	return g
}

// start runs the gateway and waits for its /health.
func (g *gateway) start(t *testing.T, extra ...string) {
	t.Helper()
	logs, err := os.OpenFile(g.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	require.NoError(t, err)
	g.cmd = exec.Command(g.bin)
	g.cmd.Env = append(append([]string(nil), g.env...), extra...)
	g.cmd.Stdout, g.cmd.Stderr = logs, logs
	require.NoError(t, g.cmd.Start())
	g.done = make(chan struct{})
	go func() { _ = g.cmd.Wait(); logs.Close(); close(g.done) }()
	t.Cleanup(func() { g.stop() })
	for deadline := time.Now().Add(60 * time.Second); ; {
		if resp, err := http.Get(g.url + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-g.done:
			b, _ := os.ReadFile(g.log)
			t.Fatalf("gateway %s exited; its log:\n%s", g.name, b)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("gateway %s did not answer GET /health within 60 s", g.name)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (g *gateway) stop() {
	if g.cmd == nil || g.cmd.Process == nil {
		return
	}
	_ = g.cmd.Process.Signal(os.Interrupt)
	select {
	case <-g.done:
	case <-time.After(15 * time.Second):
		_ = g.cmd.Process.Kill()
		<-g.done
	}
}

// admin runs the admin CLI on the gateway's data directory (the gateway
// stopped: the embedded store is one process's) with --json and env added.
func (g *gateway) admin(t *testing.T, env []string, args ...string) map[string]any {
	t.Helper()
	cmd := exec.Command(bins.admin, append([]string{"--data-dir", g.dataDir, "--json"}, args...)...)
	cmd.Env = append(append([]string(nil), g.env...), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), "admin %s: %s", strings.Join(args, " "), errb.String())
	var v map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &v), "admin %s answered %s", strings.Join(args, " "), out.String())
	return v
}

// call is one request to a gateway with a key; it answers the status and
// the JSON body (nil when none).
func call(t *testing.T, base, key, method, path string, body any, headers ...string) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, base+path, rd)
	require.NoError(t, err)
	req.Header.Set("Authorization", key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := (&http.Client{Timeout: 60 * time.Second}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var v map[string]any
	if len(bytes.TrimSpace(raw)) > 0 && raw[0] == '{' {
		require.NoError(t, json.Unmarshal(raw, &v), "%s %s answered %s", method, path, raw)
	}
	return resp.StatusCode, v
}

// eventually polls f until it holds or 60 s pass.
func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !f(); {
		if time.Now().After(deadline) {
			t.Fatalf("not within 60 s: %s", what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

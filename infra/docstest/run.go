package docstest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// prelude is what the runner defines before a page's blocks: bash's strict
// mode, curl wrapped so each answer's status and body are kept for the
// expectations after it (the examples call curl as a reader would, with -s
// and without -o or -w), uuidgen where the machine has none, and the block
// marker that names the block in a failure.
const prelude = `set -eo pipefail
shopt -s inherit_errexit
curl() {
  local rc=0
  command curl -sS -o "$DOCSTEST_DIR/body" -w '%{http_code}' "$@" >"$DOCSTEST_DIR/status" || rc=$?
  cat "$DOCSTEST_DIR/body"
  printf '\n' >&2
  return $rc
}
command -v uuidgen >/dev/null || uuidgen() { python3 -c 'import uuid; print(uuid.uuid4())'; }
__block() { printf '\n=== %s\n' "$1" >&2; }
__expect() {
  if [[ -f $DOCSTEST_DIR/status ]]; then
    cp "$DOCSTEST_DIR/status" "$DOCSTEST_DIR/got-$1.status"; cp "$DOCSTEST_DIR/body" "$DOCSTEST_DIR/got-$1.body"
  fi
  : >"$DOCSTEST_DIR/reached-$1"
}
`

// Env is what a page's examples run with: the gateway's base URL, a test
// secret key of its sandbox account (and a client key, for a page that uses
// CLIENT_KEY), and the README's helpers (json).
type Env struct {
	API, Key, ClientKey string
	Helpers             string
}

// Run runs a page's script in one bash session and checks its
// expectations. It returns the failures (none: the page works) and the
// session's output, for a report.
func Run(ctx context.Context, p *Page, env Env, dir string) (failures []string, output string) {
	script := prelude + env.Helpers + "\n" + p.Script
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	// The session and whatever an example starts in the background (a
	// webhook receiver) are one process group, ended together.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	defer func() {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}()
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "API="+env.API, "KEY="+env.Key, "CLIENT_KEY="+env.ClientKey, "DOCSTEST_DIR="+dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	output = out.String()
	if err != nil {
		failures = append(failures, fmt.Sprintf("%s: the examples stopped (%v) in the block last named in the output", p.Name, err))
	}
	for i, e := range p.Expect {
		where := fmt.Sprintf("%s:%d: # -> %s", p.Name, e.Line, e.Text)
		if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("reached-%d", i))); err != nil {
			if len(failures) == 0 {
				failures = append(failures, where+": not reached")
			}
			continue
		}
		status, err1 := os.ReadFile(filepath.Join(dir, fmt.Sprintf("got-%d.status", i)))
		body, err2 := os.ReadFile(filepath.Join(dir, fmt.Sprintf("got-%d.body", i)))
		if err1 != nil || err2 != nil {
			failures = append(failures, where+": no curl answered before it")
			continue
		}
		if e.Status != 0 {
			if got, _ := strconv.Atoi(strings.TrimSpace(string(status))); got != e.Status {
				failures = append(failures, fmt.Sprintf("%s: status %d, want %d; body %.500s", where, got, e.Status, body))
				continue
			}
		}
		if e.Pattern != nil {
			if d := Match(e.Pattern, body); d != "" {
				failures = append(failures, fmt.Sprintf("%s: %s\n  the answer: %.1000s", where, d, body))
			}
		}
	}
	return failures, output
}

package runtimeapi

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Config describes one function instance to run.
type Config struct {
	Binary   string            // path to the bootstrap executable
	Name     string            // AWS_LAMBDA_FUNCTION_NAME; also the ARN's last part
	MemoryMB int               // AWS_LAMBDA_FUNCTION_MEMORY_SIZE; 0 means 256
	Region   string            // AWS_REGION; "" means us-east-1
	Timeout  time.Duration     // per invocation; 0 means 10 s (the template's)
	Env      map[string]string // the function's own environment
	Stdout   io.Writer         // the function's logs; nil discards them
	Stderr   io.Writer         // also kept (the tail) for error messages; nil keeps only that
	// InheritEnv passes this process's environment first (PATH, HOME, AWS
	// credentials for DynamoDB Local); Env and the Lambda variables win.
	InheritEnv bool
}

// Function is a running function instance: its process and its Runtime API.
type Function struct {
	*Server
	cfg     Config
	cmd     *exec.Cmd
	stderr  *tailBuffer
	started time.Time
	exited  chan struct{}
}

// Start serves a Runtime API and execs the binary against it. Start returns
// as soon as the process runs; Invoke waits for it to ask for work.
func Start(cfg Config) (*Function, error) {
	if cfg.MemoryMB == 0 {
		cfg.MemoryMB = 256
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.Name == "" {
		cfg.Name = "function"
	}
	srv, err := NewServer(fmt.Sprintf("arn:aws:lambda:%s:000000000000:function:%s", cfg.Region, cfg.Name))
	if err != nil {
		return nil, err
	}
	f := &Function{Server: srv, cfg: cfg, stderr: &tailBuffer{max: 64 << 10}, exited: make(chan struct{})}
	f.cmd = exec.Command(cfg.Binary)
	f.cmd.Env = f.environ()
	f.cmd.Stdout = cfg.Stdout
	f.cmd.Stderr = f.stderr
	if cfg.Stderr != nil {
		f.cmd.Stderr = io.MultiWriter(f.stderr, cfg.Stderr)
	}
	f.started = time.Now()
	if err := f.cmd.Start(); err != nil {
		srv.Close()
		return nil, fmt.Errorf("runtimeapi: start %s: %w", cfg.Binary, err)
	}
	go f.wait()
	return f, nil
}

func (f *Function) environ() []string {
	env := map[string]string{}
	if f.cfg.InheritEnv {
		for _, kv := range os.Environ() {
			if k, v, ok := strings.Cut(kv, "="); ok {
				env[k] = v
			}
		}
	}
	for k, v := range f.cfg.Env {
		env[k] = v
	}
	for k, v := range map[string]string{
		"AWS_LAMBDA_RUNTIME_API":          f.Addr(),
		"AWS_LAMBDA_FUNCTION_NAME":        f.cfg.Name,
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": strconv.Itoa(f.cfg.MemoryMB),
		"AWS_LAMBDA_FUNCTION_VERSION":     "$LATEST",
		"AWS_REGION":                      f.cfg.Region,
		"AWS_DEFAULT_REGION":              f.cfg.Region,
		"_HANDLER":                        "bootstrap",
	} {
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// wait turns the process's exit into the error of every pending Invoke.
func (f *Function) wait() {
	err := f.cmd.Wait()
	if err == nil {
		err = fmt.Errorf("exited")
	}
	f.abort(fmt.Errorf("runtimeapi: function process %s: %v; stderr:\n%s", f.cfg.Name, err, f.stderr.String()))
	close(f.exited)
}

// Invoke sends event with the configured timeout.
func (f *Function) Invoke(ctx context.Context, event []byte) ([]byte, error) {
	return f.Server.Invoke(ctx, event, f.cfg.Timeout)
}

// PID is the process id of the running instance (for its /proc figures).
func (f *Function) PID() int { return f.cmd.Process.Pid }

// Started is when the process was exec'd: cold start is measured from it.
func (f *Function) Started() time.Time { return f.started }

// Close kills the process and stops the Runtime API.
func (f *Function) Close() error {
	if f.cmd.Process != nil {
		_ = f.cmd.Process.Kill()
		<-f.exited
	}
	return f.Server.Close()
}

// ColdStart execs a fresh instance, sends event, and returns the time from
// exec to the answer (the cold start as a caller sees it, minus the network)
// and the answer. The instance is gone when it returns.
func ColdStart(ctx context.Context, cfg Config, event []byte) (time.Duration, []byte, error) {
	f, err := Start(cfg)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	resp, err := f.Invoke(ctx, event)
	elapsed := time.Since(f.Started())
	return elapsed, resp, err
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

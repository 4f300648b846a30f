// Command invoke runs one function of template.yaml the way Lambda does: it
// builds the function's bootstrap binary, starts it under a fake Lambda
// Runtime API, sends it an event file and prints the answer.
//
//	go run ./infra/invoke -fn MerchantsFunction -event events/merchants-me.json
//	go run ./infra/invoke -memory     # every function's peak RSS, CPU per invocation, MemorySize
//
// The store is the embedded one under ./.data/invoke by default (its own
// directory: `make run` holds ./.data, and a bbolt file has one owner at a
// time), or DynamoDB Local with -store dynamodb -endpoint URL. Either way the
// sample-events account and its sandbox key are created first when missing.
// Exit status: 0 answered, 1 could not run, 2 the function failed or died.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/paygate/paygate/infra/runtimeapi"
)

type options struct {
	fn, event, store, dataDir, endpoint, tablePrefix, template string
	timeout                                                    time.Duration
	quiet                                                      bool
	memory                                                     bool   // -memory: size every function (memory.go)
	runs                                                       int    // -memory: warm rounds
	passes                                                     int    // -memory: measurements of each function, the least CPU kept
	only                                                       string // -memory: functions matching this regexp
	write                                                      bool   // -memory: set MemorySize in the template
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("invoke", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.fn, "fn", "", "logical id of the function in template.yaml (e.g. HealthFunction)")
	fs.StringVar(&o.event, "event", "", "event file (e.g. events/health-get.json)")
	fs.StringVar(&o.store, "store", "embedded", "embedded or dynamodb")
	fs.StringVar(&o.dataDir, "data-dir", filepath.Join(".data", "invoke"), "embedded store directory")
	fs.StringVar(&o.endpoint, "endpoint", os.Getenv("DYNAMODB_ENDPOINT"), "DynamoDB Local endpoint (dynamodb store)")
	fs.StringVar(&o.tablePrefix, "table-prefix", "paygate-local-", "physical table name prefix (dynamodb store)")
	fs.StringVar(&o.template, "template", "", "SAM template (default: template.yaml at the module root)")
	fs.DurationVar(&o.timeout, "timeout", 0, "invocation timeout (default: the function's Timeout in the template)")
	fs.BoolVar(&o.quiet, "quiet", false, "do not copy the function's logs to stderr")
	fs.BoolVar(&o.memory, "memory", false, "measure peak RSS and CPU per invocation of every function on its events/ samples, and print the MemorySize each should get")
	fs.IntVar(&o.runs, "runs", 20, "-memory: warm rounds of each function's events")
	fs.IntVar(&o.passes, "passes", 1, "-memory: measure every function this many times, one pass over all after another, and keep each one's least CPU and highest peak RSS")
	fs.BoolVar(&o.write, "write", false, "-memory: set each measured function's MemorySize (and the comment giving its reason) in the template")
	fs.StringVar(&o.only, "only", "", "-memory: only the functions whose logical id matches this regular expression")
	if err := fs.Parse(args); err != nil {
		return 1
	}
	if o.memory {
		if o.template == "" {
			root, err := runtimeapi.ModuleRoot(".")
			if err != nil {
				fmt.Fprintln(stderr, "invoke -memory:", err)
				return 1
			}
			o.template = filepath.Join(root, "template.yaml")
		}
		if o.dataDir == filepath.Join(".data", "invoke") {
			o.dataDir = "" // each function gets a fresh directory
		}
		rows, err := measureMemory(ctx, o, stdout, stderr)
		if err == nil && o.write {
			err = writeTemplate(o.template, rows)
		}
		if err != nil {
			fmt.Fprintln(stderr, "invoke -memory:", err)
			return 1
		}
		return 0
	}
	if o.fn == "" || o.event == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: invoke -fn <LogicalId> -event <file> [-store embedded|dynamodb] [-data-dir DIR] [-endpoint URL]")
		return 1
	}
	out, err := invoke(ctx, o, stderr)
	var fe *runtimeapi.FunctionError
	switch {
	case errors.As(err, &fe):
		fmt.Fprintln(stderr, "invoke:", err)
		return 2
	case errors.Is(err, errRun):
		fmt.Fprintln(stderr, "invoke:", err)
		return 2
	case err != nil:
		fmt.Fprintln(stderr, "invoke:", err)
		return 1
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, out, "", "  ") != nil {
		pretty.Reset()
		pretty.Write(out)
	}
	pretty.WriteByte('\n')
	_, _ = stdout.Write(pretty.Bytes())
	return 0
}

// errRun marks failures of the function itself (crash, init error, timeout)
// as opposed to failures to set it up.
var errRun = errors.New("function failed")

func invoke(ctx context.Context, o options, logs io.Writer) ([]byte, error) {
	event, err := os.ReadFile(o.event)
	if err != nil {
		return nil, err
	}
	root, err := runtimeapi.ModuleRoot(".")
	if err != nil {
		return nil, err
	}
	if o.template == "" {
		o.template = filepath.Join(root, "template.yaml")
	}
	fn, err := lookup(o.template, o.fn)
	if err != nil {
		return nil, err
	}
	env, err := functionEnv(fn, o)
	if err != nil {
		return nil, err
	}
	if err := seed(ctx, env); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "paygate-invoke-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "bootstrap")
	if err := runtimeapi.Build(ctx, root, "./"+fn.CodeURI, bin, runtimeapi.BuildOptions{}); err != nil {
		return nil, err
	}
	cfg := runtimeapi.Config{Binary: bin, Name: fn.LogicalID, Timeout: fn.Timeout, MemoryMB: fn.MemoryMB, Env: env}
	if o.timeout > 0 {
		cfg.Timeout = o.timeout
	}
	if !o.quiet {
		cfg.Stdout, cfg.Stderr = logs, logs
	}
	f, err := runtimeapi.Start(cfg)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out, err := f.Invoke(ctx, event)
	var fe *runtimeapi.FunctionError
	if err != nil && !errors.As(err, &fe) && ctx.Err() == nil {
		return nil, fmt.Errorf("%w: %v", errRun, err)
	}
	return out, err
}
